// The benchmark families memrel_bench registers, one per file: a new family is one file and one
// line in main.cpp.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <utility>

#include "benchmarks/benchmark_target.hpp"

namespace memrel::bench {

// The mode of a benchmark name: warm, the allocator's cache already holds what the operation
// needs; cold, it was emptied (release) first.
enum class CacheState { kWarm, kCold };

inline const char* cache_state_name(CacheState cache) {
  return cache == CacheState::kWarm ? "warm" : "cold";
}

// pair, alloc and free of one block, warm and cold, every size (block_benchmarks.cpp).
void register_block_benchmarks(const BenchmarkTarget& target);
// release with one block's worth cached, every size (release_benchmark.cpp).
void register_release_benchmarks(const BenchmarkTarget& target);
// RMM-style random allocations and frees, one per seed (churn_benchmark.cpp).
void register_churn_benchmarks(const BenchmarkTarget& target);

// Every memrel benchmark times itself (timing.hpp) and reports nanoseconds, so that every reader
// finds one unit whatever the size. Returned for the cold rule (cold_samples).
template <typename Body>
benchmark::internal::Benchmark* register_manually_timed(const std::string& name, Body&& body) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Body>(body))
      ->UseManualTime()
      ->Unit(benchmark::kNanosecond);
}

}  // namespace memrel::bench
