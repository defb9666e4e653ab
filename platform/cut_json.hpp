// Whether a text is a JSON document cut short: every byte of it parses, and the parser stops only
// for want of more. How a journal's header cut by a kill is told from a user's line that merely
// begins as one (docs/run-journal.md).
#pragma once

#include <string>

namespace memrel {

// TEXT is the start of some JSON text, not a whole one (`{"a": [1, "x` is; `{"a": x` and
// `{"a": 1}` are not).
bool is_cut_json(const std::string& text);

}  // namespace memrel
