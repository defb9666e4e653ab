// An error message with every NUL written as \u0000. An exception's what() is a C string, which
// ends at the first NUL: a name or key holding one (read from JSON's \u0000) cut every error line
// about it short, before the reason ("memrel: w1.json: ste", the thirty-second adversarial pass,
// c7-*-nul-*-cuts-error). memrel's error classes pass their message through it, so that what()
// holds all of it, as the one line will show it (platform/one_line_text, JSON's spelling).
#pragma once

#include <string>

namespace memrel {

inline std::string nul_escaped(const std::string& text) {
  if (text.find('\0') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (c == '\0')
      out += "\\u0000";
    else
      out += c;
  }
  return out;
}

}  // namespace memrel
