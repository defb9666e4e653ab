// Google Benchmark's JSON reporter, minus the one thing it writes that is not JSON.
//
// Google Benchmark 1.7.1 computes the cv aggregate (stddev / mean) of a counter that is 0 in
// every repetition as 0/0 and writes the bare token NaN, which strict parsers (nlohmann::json in
// `memrel compare`, jq) refuse; reserved and overhead are 0 that way for every non-caching
// backend. Later releases define the cv of a zero mean as 0 (the only way it is not finite), and
// so does this reporter. Everything else is written exactly as JSONReporter writes it.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

namespace memrel::bench {

class FiniteJsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& reports) override {
    std::vector<Run> finite = reports;
    for (Run& run : finite) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "cv") continue;
      for (auto& [name, counter] : run.counters) {
        if (!std::isfinite(counter.value)) counter.value = 0;
      }
    }
    benchmark::JSONReporter::ReportRuns(finite);
  }
};

}  // namespace memrel::bench
