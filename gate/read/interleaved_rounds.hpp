// `memrel ab`'s rounds as the gate reads them (docs/ab.md). Each round is one memrel_bench
// process of one side; its figure for a benchmark is the median of that process's repetitions
// (the reading rule). The merged file has one "iteration" entry per round, so the rank test
// compares N reference processes with N candidate processes: samples taken minutes apart in one
// process are not independent, and testing them as if they were would call process-to-process
// noise significant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gate/read/benchmark_json.hpp"

namespace memrel {

// Google Benchmark JSON (memrel.gbench-reading/1 reads it back): the first round's context plus
// "memrel_ab" (a JSON string: `ab_context`), then per benchmark one iteration entry per round
// (real_time in ns, the round's counters; a round in which it was skipped says so). A benchmark
// is named as in the rounds, except that `backend_from` in the second part of its name becomes
// `backend_to` (two backend files compared under one name); empty: unchanged.
nlohmann::json merge_rounds(const std::vector<BenchmarkRun>& rounds,
                            const nlohmann::json& ab_context, const std::string& backend_from = "",
                            const std::string& backend_to = "");

}  // namespace memrel
