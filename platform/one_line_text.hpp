// An error or progress line is one readable line whatever a name in it holds. A newline in a
// backend's name or a path made two lines; a byte that is not UTF-8 went to the terminal raw
// (`run -w $'ab\xffc'`, the seventh adversarial pass, m3); a right-to-left override (U+202E) turned
// the rest of the line around (docs/inputs.md, "Leftovers and one-line errors").
#pragma once

#include <string>
#include <string_view>

namespace memrel {

// `text` with newline, carriage return and tab as \n \r \t; any other control character below
// U+0080 as \xHH; a byte that starts no well-formed UTF-8 sequence as \xHH (as path_for_json
// writes it); a C1 control, a bidirectional control (platform/name_characters), a line or
// paragraph separator (U+2028, U+2029: line breaks to some readers) or a noncharacter (U+FFFE: no
// XML file, such as compare's JUnit, may hold it) as \uXXXX. The rest unchanged.
// scripts/memrel_outputs/one_line.py is the Python parts' twin.
std::string one_line_text(std::string_view text);

}  // namespace memrel
