// How large a run's results file grows, told before its first cell: results memrel's own readers
// refuse (over kMaxResultsFileBytes) were written, exit 0, by a run of two traces of 265,000
// allocate-failure marks each on three backends: 147 MB that compare, history, report and merge
// refused (the thirty-fourth adversarial pass, c7-run-writes-results-its-readers-refuse).
#pragma once

#include <cstdint>
#include <string>

#include "harness/workload/workload.hpp"

namespace memrel {

// About the bytes one cell of `w` adds to a results file, from below: measured on memrel's own
// results (as run writes them, one space a level): 2 KiB a cell, 330 bytes a recorded step, 250
// a mark, 90 each of a trace's header marks (a cell lists them all).
std::uint64_t cell_results_bytes(const Workload& w);
// The same for a cell replaying `trace`.
std::uint64_t cell_results_bytes(const Trace& trace);

// "" when `bytes` (the sum over a run's cells) fits what the readers take; else why not, to
// refuse the run before its first cell.
std::string results_too_large(std::uint64_t bytes);

// Results serialised as `text`, to be written to `path` (named by `option`): throws
// std::invalid_argument, nothing written, when the readers would refuse them. The estimate is
// from below: run, advise and merge check what they are about to write (merge and advise wrote
// 136 MB of results, exit 0: the thirty-fifth adversarial pass, c7-*-writes-results-its-readers-
// refuse). `kept` says where the work stays ("the cells are in X.journal"), or is empty.
void refuse_results_past_the_cap(const std::string& option, const std::string& path,
                                 const std::string& text, const std::string& kept);

}  // namespace memrel
