#include "platform/name_characters.hpp"

#include <cstdio>

namespace memrel {
namespace {

std::string escaped(unsigned code) {
  char text[8];
  std::snprintf(text, sizeof text, "\\u%04X", code);
  return text;
}

bool bidi_control(unsigned code) {
  return code == 0x061C || code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

}  // namespace

std::string forbidden_name_character(std::string_view name) {
  // Decoded as UTF-8; a byte that starts no valid sequence is passed over (the JSON reader has
  // refused such text already).
  for (std::size_t i = 0; i < name.size();) {
    const auto b = static_cast<unsigned char>(name[i]);
    unsigned code = b, length = 1;
    if (b >= 0xC0 && b < 0xE0) {
      code = b & 0x1F;
      length = 2;
    } else if (b >= 0xE0 && b < 0xF0) {
      code = b & 0x0F;
      length = 3;
    } else if (b >= 0xF0 && b < 0xF8) {
      code = b & 0x07;
      length = 4;
    }
    bool valid = b < 0x80 || (length > 1 && i + length <= name.size());
    for (unsigned k = 1; valid && k < length; ++k) {
      const auto c = static_cast<unsigned char>(name[i + k]);
      valid = (c & 0xC0) == 0x80;
      code = (code << 6) | (c & 0x3F);
    }
    if (!valid) {
      ++i;
      continue;
    }
    if (code < 0x20 || (code >= 0x7F && code <= 0x9F) || bidi_control(code)) return escaped(code);
    i += length;
  }
  return "";
}

}  // namespace memrel
