// What the machine itself changed between two runs: the median current/baseline ratio of the
// figure of every benchmark both sides timed (--normalize-drift divides it out).
#pragma once

#include <vector>

#include "gate/read/benchmark_json.hpp"

namespace memrel {

struct BenchmarkRunPair {
  const BenchmarkRun* baseline;
  const BenchmarkRun* current;
};

// 1 when nothing can be paired.
double machine_drift(const std::vector<BenchmarkRunPair>& pairs);

}  // namespace memrel
