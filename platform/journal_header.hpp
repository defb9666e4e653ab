// The first line of a run's journal (harness/execution/run_journal.hpp, docs/run-journal.md), by
// which memrel knows one: the journal's writer and every reader that names a journal given where
// another kind of file goes (platform/input_rules) tell it by the same rule. Two copies of the
// schema's name, one in each layer, could drift apart.
#pragma once

#include <string>

namespace memrel {

constexpr const char* kJournalSchema = "memrel.journal/1";

// A whole line (its newline left out) that is a JSON object whose "schema" is kJournalSchema.
bool is_a_journal_header(const std::string& first_line);

}  // namespace memrel
