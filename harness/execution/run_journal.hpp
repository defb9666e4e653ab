// The journal of a run (schema "memrel.journal/1", docs/run-journal.md): JSON Lines next to the
// results file, RESULTS.journal. The first line says which run it is (its matrix and options,
// each workload's content digest, and the run's context); every later line is one finished
// cell, appended and synced to disk the moment it finishes. A run that is interrupted, even by
// SIGKILL, keeps every finished cell there; `memrel run --resume` reads it back, refuses a
// journal of another run, and runs only the cells it lacks. The journal is removed once the
// results file is written.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/results/results.hpp"
#include "platform/durable_append.hpp"
#include "platform/journal_header.hpp"  // kJournalSchema
#include "platform/process_identity.hpp"

namespace memrel {

std::string journal_path_for(const std::string& results_path);

// What a journal holds: its first line's run and context (with the resumptions recorded since in
// its "resumed"), and the finished cells by their index in the run's matrix.
struct JournalContent {
  nlohmann::json run;
  nlohmann::json context;
  std::map<std::size_t, CellResult> cells;
  std::uint64_t whole_bytes = 0;  // up to the end of the last whole line
  // The process that wrote it last: the run that started it (the header's "writer"), or the
  // last resume (a {"writer": ...} line); nullopt for a journal of an older memrel.
  std::optional<ProcessIdentity> writer;
};

// Throws ResultsError naming the file and the line. A last line without its newline (the
// runner was killed while writing it) is not an error: it is left out, and cut on resume.
JournalContent read_journal(const std::string& path);

// Before a fresh run: why the journal's place is taken ("PATH: " and `journal_is_there` when a
// journal is there); "" when it is free. The start of a run killed as it began (a file without a
// whole first line that no live run holds, made before journals appeared whole) holds no cell: it
// is removed, and "" returned. What is not a regular file is said as such: no resume can take it.
std::string journal_place_taken(const std::string& path, const std::string& journal_is_there);

// Empty when `run` is the run the journal was started for; else what differs, for the user.
std::string journal_mismatch(const nlohmann::json& journal_run, const nlohmann::json& run);

// Every record is the run's own cell: its index inside the matrix, and the backend and workload
// recorded in it those of the matrix's cell at that index (MATRIX: (backend, workload) by index).
// ResultsError naming the cell otherwise, so a resume can neither duplicate, drop nor invent one.
void check_journal_cells(const std::string& path, const std::map<std::size_t, CellResult>& cells,
                         const std::vector<std::pair<std::string, std::string>>& matrix);

// A journal is held (flock) by the run writing it, and names that run's process (its header's
// "writer", and a resume's {"writer": ...} line): a second run (a --resume while the first is
// live, also when the journal was replaced by a copy, which no lock holds) is refused with
// ResultsError, and nothing in the journal is touched.
class RunJournal {
 public:
  // A new journal; ResultsError when one is already there (an interrupted run, not to be lost).
  static RunJournal start(const std::string& path, const nlohmann::json& run,
                          const nlohmann::json& context);
  // Appends to the journal that `content` was read from, first a line naming this process.
  static RunJournal resume(const std::string& path, const JournalContent& content);

  // On disk when it returns.
  void record(std::size_t index, const CellResult& cell);
  // That the run was resumed at UTC_TIME, a line of its own written with the first cell this
  // resumption records (one that finishes no cell is not one): a resumed run stopped again and
  // resumed once more lists every resumption (read_journal adds them to the context's
  // "resumed").
  void record_resumption(const std::string& utc_time);
  // The journal's file, to remove it by (remove_if_same_file) once the results are written.
  FileIdentity identity() const { return file_.identity(); }

 private:
  explicit RunJournal(DurableAppendFile file) : file_(std::move(file)) {}
  DurableAppendFile file_;
  std::string pending_resumption_;  // a line for the next record(), or ""
};

}  // namespace memrel
