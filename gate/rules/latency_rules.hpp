// The rules for Google Benchmark files, benchmark by benchmark: a skipped benchmark that used to
// run fails; latency fails only when a rank test over the repetitions says the shift is real AND
// it is larger than the minimum change; byte counters follow the byte rules.
#pragma once

#include "gate/compare_options.hpp"
#include "gate/read/benchmark_json.hpp"
#include "gate/verdict.hpp"

namespace memrel {

FileComparison compare_benchmark_runs(const BenchmarkRun& baseline, const BenchmarkRun& current,
                                      const CompareOptions& options);

}  // namespace memrel
