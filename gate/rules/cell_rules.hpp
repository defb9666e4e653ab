// The rules for suite results (memrel.results/1), cell by cell: status first, then the byte
// metrics, release effectiveness and every mark; single-run latencies are shown, never gated.
#pragma once

#include "gate/compare_options.hpp"
#include "gate/verdict.hpp"
#include "harness/results/results.hpp"

namespace memrel {

FileComparison compare_runs(const RunResults& baseline, const RunResults& current,
                            const CompareOptions& options);

}  // namespace memrel
