// Whether a text is a JSON document cut short: every byte of it parses, and the parser stops only
// for want of more. How a journal's header cut by a kill is told from a user's line that merely
// begins as one (docs/run-journal.md), and a benchmark file cut by a full disk from one that is no
// JSON (harness/execution/bench_launcher.cpp).
#pragma once

#include <string>

namespace memrel {

// What a text is as JSON, read once: whole; cut short (the start of some JSON text, not a whole
// one: `{"a": [1, "x`, and the empty text); or something else (`{"a": x`, `{"a": 1} x`).
enum class JsonTextKind { kWhole, kCutShort, kNotJson };
JsonTextKind json_text_kind(const std::string& text);

inline bool is_cut_json(const std::string& text) {
  return json_text_kind(text) == JsonTextKind::kCutShort;
}

}  // namespace memrel
