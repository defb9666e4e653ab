// A file name as JSON text: Linux names are bytes, JSON strings are UTF-8.
#pragma once

#include <string>

namespace memrel {

// `path` with every byte that is not part of a well-formed UTF-8 sequence written as the four
// characters `\xHH` (lower-case hex), the rest unchanged: Python's "backslashreplace", the rule
// the trace importer already follows (scripts/memrel_trace/__main__.py, _as_text), so that the C++
// and Python sides write one name the same way. Every path that goes into a JSON document memrel
// writes passes through here; nlohmann::json refuses to dump invalid UTF-8, and `run -w
// $'w\xff.json'` exited 4 with "invalid UTF-8 byte" (the fifth adversarial pass, t22).
//
// The text is for reading, not a way back to the file: a name holding the four characters `\xff`
// is written the same as one holding the byte 0xff. Nothing memrel does finds a file by this text
// (a journal is matched by each workload's content digest too; merge by shard numbers), whereas
// nlohmann's error_handler_t::replace would write every bad byte as U+FFFD, making `w\xfe.json`
// and `w\xff.json` one name, and hiding which byte was there.
std::string path_for_json(const std::string& path);

}  // namespace memrel
