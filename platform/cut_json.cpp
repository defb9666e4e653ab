#include "platform/cut_json.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>

namespace memrel {
namespace {

// Takes every value and records where the parser stopped: nlohmann's error position is one past
// the text when it ran out of input, and within it at a byte no JSON text holds there.
class StopPosition : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception&) override {
    stopped_at = position;
    return false;
  }
  std::size_t stopped_at = 0;
};

}  // namespace

JsonTextKind json_text_kind(const std::string& text) {
  StopPosition stop;
  if (nlohmann::json::sax_parse(text, &stop)) return JsonTextKind::kWhole;
  return stop.stopped_at == text.size() + 1 ? JsonTextKind::kCutShort : JsonTextKind::kNotJson;
}

}  // namespace memrel
