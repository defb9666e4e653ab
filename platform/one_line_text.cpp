#include "platform/one_line_text.hpp"

#include <cstdio>

#include "platform/name_characters.hpp"
#include "platform/utf8_sequence.hpp"

namespace memrel {
namespace {

std::string hex_byte(unsigned char byte) {
  char text[16];
  std::snprintf(text, sizeof text, "\\x%02x", byte);
  return text;
}

}  // namespace

std::string one_line_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += hex_byte(static_cast<unsigned char>(text[i++]));
      continue;
    }
    const unsigned code = utf8_code_point(text, i, length);
    if (code == '\n') {
      out += "\\n";
    } else if (code == '\r') {
      out += "\\r";
    } else if (code == '\t') {
      out += "\\t";
    } else if (code < 0x80 && forbidden_in_a_name(code)) {
      out += hex_byte(static_cast<unsigned char>(code));
    } else if (forbidden_in_a_name(code) || code == 0x2028 || code == 0x2029) {
      out += code_point_text(code);
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

}  // namespace memrel
