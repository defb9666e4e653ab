// What the machine itself changed between two runs: the median current/baseline ratio of the
// figure of every benchmark both sides timed (--normalize-drift divides it out).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "gate/read/benchmark_json.hpp"

namespace memrel {

struct BenchmarkRunPair {
  const BenchmarkRun* baseline;
  const BenchmarkRun* current;
};

// 1 when nothing can be paired.
double machine_drift(const std::vector<BenchmarkRunPair>& pairs);

// How unevenly the machine moved the benchmarks between two separate runs: the spread of every
// benchmark's log(current / baseline) around their median, as a standard deviation estimated
// robustly (1.4826 x the median absolute deviation, which one runaway benchmark cannot inflate).
// Measured on the 2-core machine between back-to-back runs of one build: 0.18 to 0.38, i.e. a
// benchmark typically moved 20-45 % against the others. Absent with fewer than
// kMinBenchmarksForDriftSpread benchmarks: too few to tell the spread from a change.
constexpr std::size_t kMinBenchmarksForDriftSpread = 8;
std::optional<double> machine_drift_spread(const std::vector<BenchmarkRunPair>& pairs);

}  // namespace memrel
