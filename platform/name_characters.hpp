// The characters a workload or trace name may not hold: a control character (U+0000-001F,
// U+007F-009F), a bidirectional control (U+061C, U+200E, U+200F, U+202A-202E, U+2066-2069),
// the line and paragraph separators (U+2028, U+2029), the noncharacters (U+FDD0-FDEF, U+FFFE
// and U+FFFF of every plane) and the invisible characters that join nothing (U+00AD, U+180E,
// U+200B, U+2060-2064, U+FEFF).
// A name goes raw into results, compare's tables, Markdown, the history and the report: a NUL
// made `history add` fail on SQLite's own words after `run` said exit 0, a newline broke a table
// row, a right-to-left override (U+202E) turned the text after it around (the sixth adversarial
// pass, d-sanit12, t26, m20, i79). scripts/memrel_trace/name_characters.py is the importer's twin;
// tests/data/name_characters.json holds names and the verdict both give.
#pragma once

#include <string>
#include <string_view>

namespace memrel {

// `code` as "\uXXXX" (four upper-case hex digits at least), as names' errors and error lines say
// it.
std::string code_point_text(unsigned code);

// Whether code point `code` is such a character.
bool forbidden_in_a_name(unsigned code);

// The first such character of UTF-8 `name`, as "\uXXXX" (four upper-case hex digits), or "" when
// it holds none.
std::string forbidden_name_character(std::string_view name);

}  // namespace memrel
