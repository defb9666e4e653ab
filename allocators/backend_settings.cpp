#include "allocators/backend_settings.hpp"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>

#include "platform/byte_size.hpp"
#include "platform/decimal_text.hpp"
#include "platform/unusable_input.hpp"

namespace memrel {
namespace {

[[noreturn]] void refuse(const BackendSetting& s, const std::string& value,
                         const std::string& accepts) {
  throw UnusableInput("setting " + s.key + "=" + value + ": " + accepts);
}

std::string number_text(double v) {
  std::ostringstream out;
  out.precision(15);
  out << v;
  return out.str();
}

// No leading zero, as in every whole number memrel reads (docs/inputs.md, "Numbers on the command
// line"): `arena_max=007` was taken as 7.
bool whole_number(const std::string& text) {
  return !text.empty() && text.size() <= 18 &&
         text.find_first_not_of("0123456789") == std::string::npos &&
         (text.size() == 1 || text[0] != '0');
}

}  // namespace

std::string canonical_bytes(std::uint64_t bytes) {
  static const char* units[] = {"TiB", "GiB", "MiB", "KiB"};
  static const int shifts[] = {40, 30, 20, 10};
  if (bytes == 0) return "0";
  for (int i = 0; i < 4; ++i) {
    std::uint64_t unit = std::uint64_t{1} << shifts[i];
    if (bytes % unit == 0) return std::to_string(bytes / unit) + units[i];
  }
  return std::to_string(bytes);
}

std::uint64_t setting_number(const std::string& canonical) {
  if (whole_number(canonical)) return std::stoull(canonical);
  return parse_byte_size(canonical, "setting", ~std::uint64_t{0});
}

std::string canonical_setting_value(const BackendSetting& s, const std::string& value) {
  switch (s.type) {
    case BackendSetting::Type::kBool:
      if (value == "True" || value == "true" || value == "1") return "True";
      if (value == "False" || value == "false" || value == "0") return "False";
      refuse(s, value, "expected True or False");
    case BackendSetting::Type::kInteger: {
      std::string range = "from " + number_text(s.min) + " to " + number_text(s.max);
      std::string what = s.power_of_two ? "a power of two " + range : "a whole number " + range;
      if (!whole_number(value)) refuse(s, value, "expected " + what);
      std::uint64_t n = std::stoull(value);
      if (!decimal_text_within(value, s.min, s.max) || (s.power_of_two && (n & (n - 1)) != 0))
        refuse(s, value, "expected " + what);
      return std::to_string(n);
    }
    case BackendSetting::Type::kBytes: {
      std::string range = "from " + canonical_bytes(static_cast<std::uint64_t>(s.min)) + " to " +
                          canonical_bytes(static_cast<std::uint64_t>(s.max));
      std::uint64_t bytes = 0;
      try {
        bytes = parse_byte_size_or_zero(value, s.key, static_cast<std::uint64_t>(s.max));
      } catch (const std::invalid_argument&) {
        refuse(s, value, "expected a size (bytes, or with KiB/MiB/GiB/TiB) " + range);
      }
      if (static_cast<double>(bytes) < s.min)
        refuse(s, value, "expected a size (bytes, or with KiB/MiB/GiB/TiB) " + range);
      return canonical_bytes(bytes);
    }
    case BackendSetting::Type::kFraction: {
      std::string what =
          "a number above " + number_text(s.min) + " and at most " + number_text(s.max);
      // Decimal digits as every number memrel reads is spelt: strtod also took `0x0.8`, `+0.5`
      // and ` 0.5`.
      if (!is_decimal_text(value) || !decimal_text_within(value, s.min, s.max, true))
        refuse(s, value, "expected " + what);
      const double v = std::strtod(value.c_str(), nullptr);
      if (!std::isfinite(v) || v <= s.min) refuse(s, value, "expected " + what);
      return number_text(v);
    }
    case BackendSetting::Type::kChoice: {
      std::string list;
      for (const std::string& c : s.choices) {
        if (c == value) return c;
        list += (list.empty() ? "" : ", ") + c;
      }
      refuse(s, value, "expected one of " + list);
    }
  }
  refuse(s, value, "unknown setting type");
}

std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_backend_spec(
    const std::string& spec) {
  std::size_t colon = spec.find(':');
  if (colon == std::string::npos) return {spec, {}};
  std::string name = spec.substr(0, colon), rest = spec.substr(colon + 1);
  if (rest.empty())
    throw UnusableInput("backend '" + spec + "': nothing after ':' (give KEY=VALUE,...)");
  std::vector<std::pair<std::string, std::string>> settings;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t comma = rest.find(',', start);
    std::string piece =
        rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t eq = piece.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == piece.size())
      throw UnusableInput("backend '" + spec + "': setting '" + piece + "' is not KEY=VALUE");
    std::string key = piece.substr(0, eq);
    if (!seen.insert(key).second)
      throw UnusableInput("backend '" + spec + "': setting " + key + " is given twice");
    settings.emplace_back(key, piece.substr(eq + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {name, settings};
}

std::string backend_spec_name(const std::string& name, const BackendSettings& settings) {
  std::string out = name;
  char separator = ':';
  for (const auto& [key, value] : settings) {
    out += separator + key + "=" + value;
    separator = ',';
  }
  return out;
}

std::vector<std::string> split_backend_list(const std::vector<std::string>& pieces) {
  std::vector<std::string> specs;
  for (const std::string& list : pieces) {
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t comma = list.find(',', start);
      std::string piece =
          list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      std::size_t eq = piece.find('='), colon = piece.find(':');
      bool continues = eq != std::string::npos && (colon == std::string::npos || colon > eq);
      if (continues && !specs.empty() && specs.back().find(':') != std::string::npos)
        specs.back() += "," + piece;
      else
        specs.push_back(piece);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return specs;
}

}  // namespace memrel
