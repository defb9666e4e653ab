#include "gate/read/ab_halves.hpp"

#include <optional>
#include <string>

namespace memrel {
namespace {

std::optional<nlohmann::json> ab_context(const nlohmann::json& context) {
  if (!context.is_object() || !context.contains("memrel_ab") || !context["memrel_ab"].is_string())
    return std::nullopt;
  const std::string text = context["memrel_ab"].get<std::string>();
  nlohmann::json ab = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  // A NUL ends nlohmann's input: a string with one is not the context ab wrote.
  if (!ab.is_object() || text.find('\0') != std::string::npos) return std::nullopt;
  return ab;
}

nlohmann::json field(const nlohmann::json& ab, const char* name) {
  return ab.contains(name) ? ab[name] : nlohmann::json(nullptr);
}

}  // namespace

bool ab_halves(const nlohmann::json& baseline_context, const nlohmann::json& current_context) {
  const auto b = ab_context(baseline_context), c = ab_context(current_context);
  if (!b || !c) return false;
  return field(*b, "role") == "reference" && field(*c, "role") == "candidate" &&
         field(*b, "run") == field(*c, "run") && field(*b, "rounds") == field(*c, "rounds") &&
         field(*b, "backend") == field(*c, "backend");
}

std::optional<double> ab_look_alpha(const nlohmann::json& reference_context) {
  const auto ab = ab_context(reference_context);
  if (!ab || !ab->contains("look") || !(*ab)["look"].is_object()) return std::nullopt;
  const nlohmann::json& look = (*ab)["look"];
  if (!look.contains("of") || !look["of"].is_number_integer() || look["of"].get<int>() < 2 ||
      !look.contains("alpha") || !look["alpha"].is_number())
    return std::nullopt;
  const double alpha = look["alpha"].get<double>();
  if (!(alpha > 0 && alpha < 1)) return std::nullopt;
  return alpha;
}

}  // namespace memrel
