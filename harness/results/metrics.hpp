// Arithmetic on a cell's probes. The definitions are the ones docs/metrics.md states, and every
// consumer (gate, plots, report) takes them from here or from the results file, never anew.
#pragma once

#include "harness/results/results.hpp"

namespace memrel {

// Computed from marks, steps and releases; the rest of the cell is left as it is.
CellMetrics compute_metrics(const CellResult& cell);

// The median of a non-empty list (the lower middle for an even count, so it is a real sample).
std::uint64_t median(std::vector<std::uint64_t> values);

}  // namespace memrel
