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

}  // namespace memrel
