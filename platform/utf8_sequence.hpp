// Well-formed UTF-8, one sequence at a time: the rule nlohmann::json and Python's decoder both
// follow (Unicode's table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF). Shared
// by the writers that turn a name into JSON text and into an error line.
#pragma once

#include <cstddef>
#include <string_view>

namespace memrel {

// The length of the well-formed sequence at text[i], or 0 when the byte there starts none.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// The code point of the well-formed sequence of `length` bytes at text[i].
unsigned utf8_code_point(std::string_view text, std::size_t i, std::size_t length);

}  // namespace memrel
