#include "platform/name_characters.hpp"

#include <cstdio>

#include "platform/utf8_sequence.hpp"

namespace memrel {

std::string code_point_text(unsigned code) {
  char text[16];
  std::snprintf(text, sizeof text, "\\u%04X", code);
  return text;
}

bool forbidden_in_a_name(unsigned code) {
  const bool control = code < 0x20 || (code >= 0x7F && code <= 0x9F);
  const bool bidi_control = code == 0x061C || code == 0x200E || code == 0x200F ||
                            (code >= 0x202A && code <= 0x202E) ||
                            (code >= 0x2066 && code <= 0x2069);
  // The line and paragraph separators: a name holding one printed as two lines wherever it was
  // not escaped (`history list`: the tenth adversarial pass, c9-u2028-name-history-list).
  const bool line_separator = code == 0x2028 || code == 0x2029;
  // The noncharacters (U+FDD0-FDEF and the last two of every plane): U+FFFE and U+FFFF are not
  // characters XML may hold, so a name holding one made `compare --junit` and the report's SVGs
  // files no XML reader opens (the fourteenth adversarial pass, c9-junit-noncharacter-ufffe).
  const bool noncharacter = (code >= 0xFDD0 && code <= 0xFDEF) || (code & 0xFFFE) == 0xFFFE;
  // Characters that show as nothing and join nothing: a soft hyphen, the Mongolian vowel separator,
  // a zero-width space, the word joiner and the invisible operators, a byte order mark. Workloads
  // named `zw`, `z<U+200B>w` and `z<U+FEFF>w` ran together and every table showed three `zw`
  // (the seventy-third adversarial pass, c6-zero-width-name-twins). The joiners U+200C and U+200D
  // stay: Persian, the Indic scripts and emoji sequences need them.
  const bool invisible = code == 0x00AD || code == 0x180E || code == 0x200B ||
                         (code >= 0x2060 && code <= 0x2064) || code == 0xFEFF;
  return control || bidi_control || line_separator || noncharacter || invisible;
}

std::string forbidden_name_character(std::string_view name) {
  // A byte that starts no well-formed sequence is passed over: the JSON reader has refused such
  // text already.
  for (std::size_t i = 0; i < name.size();) {
    const std::size_t length = utf8_sequence_length(name, i);
    if (length == 0) {
      ++i;
      continue;
    }
    const unsigned code = utf8_code_point(name, i, length);
    if (forbidden_in_a_name(code)) return code_point_text(code);
    i += length;
  }
  return "";
}

}  // namespace memrel
