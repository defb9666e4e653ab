// Every rule that decides what memrel_bench measures and for how long, as a named constant with
// the reason for its value (nvbench states its stopping criteria the same way). A change here
// changes the figures: say why in docs/benchmarks.md, and make a new baseline.
#pragma once

#include <cstdint>
#include <iterator>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel::bench {

inline constexpr std::uint64_t kKiB = std::uint64_t{1} << 10;
inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Block sizes go from 512 B, the smallest block PyTorch's caching allocator hands out, up by
// factors of 4 to 2 GiB, then 4 GiB: the seeds' largest tensor (4x1024x512x512 float32).
// Powers of 4 rather than 2 halve the benchmark count while still landing on every threshold
// that matters within a factor of 4 (glibc's 128 KiB mmap threshold, torch's 1 MiB small-pool
// limit and 2 MiB segments, cudaMalloc's 2 MiB pages).
inline constexpr std::uint64_t kSmallestBlockBytes = 512;
inline constexpr std::uint64_t kBlockSizeStep = 4;
inline constexpr std::uint64_t kLargestBlockBytes = 4 * kGiB;

// --quick keeps one size per regime: a small-pool block, a heap block below glibc's mmap
// threshold, a torch large-pool segment, and a block far above every cache's rounding rules.
inline const std::vector<std::uint64_t> kQuickBlockSizes = {512, 32 * kKiB, 2 * kMiB, 128 * kMiB};

// Warm benchmarks and churn: Google Benchmark grows the iteration count until one repetition's
// timed total reaches the minimum time, then runs every further repetition with that count.
// The budget: about 92 benchmarks per backend, a warm one costing ~7 minimum times of timed
// work (growth plus 5 repetitions) and at most as much again untimed; 10 backends on the H200
// (3 CUDA, 4 torch, 3 host) must fit 3 minutes together, which leaves 0.01 s. That is still
// 10^4 samples of a 1 us operation per repetition, and the repetitions, not the iterations, are
// what the gate's rank test counts.
inline constexpr double kMinTimeSeconds = 0.01;

// Cold benchmarks (and release) do driver or OS work before every sample, untimed: a release
// before a cold operation, a fresh allocation before each timed release. That work can cost a
// thousand times the timed operation (cudaMemPoolTrimTo of 4 GiB, ~10 ms, before a cudaFreeAsync
// into the pool, ~2 us), so growing the count to 0.01 s of timed work would take minutes per
// benchmark. They run a fixed number of samples per repetition instead, fewer where the driver
// work takes milliseconds; Google Benchmark then names them .../iterations:N/manual_time.
struct ColdSampleRule {
  std::uint64_t up_to_bytes;
  std::int64_t samples;
};
inline constexpr ColdSampleRule kColdSampleRules[] = {
    {8 * kMiB, 50},           // ~0.3 ms a sample on a device: 15 ms a repetition
    {128 * kMiB, 20},         // ~1 ms a sample
    {kLargestBlockBytes, 5},  // 512 MiB .. 4 GiB: 2-15 ms a sample (trim + cudaMalloc)
};

inline std::int64_t cold_samples(std::uint64_t bytes) {
  for (const ColdSampleRule& rule : kColdSampleRules) {
    if (bytes <= rule.up_to_bytes) return rule.samples;
  }
  return kColdSampleRules[std::size(kColdSampleRules) - 1].samples;
}

// The exact two-sided Mann-Whitney U test cannot reach p < 0.05 with fewer than 4 samples a
// side (with 3 vs 3 the smallest p is 0.1); 5 gives p >= 0.008, so a real shift can be detected
// while the whole set stays in budget. Google Benchmark's compare.py warns below 9: pass
// --benchmark_repetitions=9 when the time is there.
inline constexpr int kRepetitions = 5;

// Churn: RMM's random_allocations (cpp/benchmarks/random_allocations): 2N steps, each an
// allocation with probability 73% while fewer than N have been made and the live total stays
// under a cap, otherwise a free of a uniformly chosen live block; sizes uniform in 1 B .. max.
inline constexpr std::uint64_t kChurnAllocationPercent = 73;
// One seed by default: the repetitions measure timing noise, and a second sequence would double
// the cost of the slowest benchmark of every device backend. Add seeds here to widen coverage.
inline const std::vector<std::uint64_t> kChurnSeeds = {1};

struct ChurnShape {
  std::uint64_t allocations = 0;      // N: the sequence has 2N steps, plus frees of what is left
  std::uint64_t max_block_bytes = 0;  // sizes are uniform in 1 .. this
  std::uint64_t max_live_bytes = 0;   // an allocation that would pass this becomes a free
};

// Device: 64 MiB blocks, as RMM's default range; N = 1000, because cudaMalloc + cudaFree of tens
// of MiB costs 100-300 us, so a sequence takes ~0.3 s and runs ~11 times per benchmark
// (growth, repetitions, memory runs). The 16 GiB cap is about RMM's (16000 MiB), well inside
// an H200.
inline constexpr ChurnShape kDeviceChurn = {1000, 64 * kMiB, 16 * kGiB};
// Host: smaller blocks and a 1 GiB cap, so even a CI machine with little memory can hold the
// peak (pages are never touched, but the heap must be able to grow that far); N = 5000 because
// host allocations cost ~0.1-1 us.
inline constexpr ChurnShape kHostChurn = {5000, 8 * kMiB, 1 * kGiB};
// --quick: the same shapes with N = 1000.
inline constexpr std::uint64_t kQuickChurnAllocations = 1000;

// What one memrel_bench process measures.
struct MeasurementPlan {
  bool quick = false;
  std::vector<std::uint64_t> block_sizes;
  ChurnShape churn;
  double min_time_seconds = kMinTimeSeconds;
  int repetitions = kRepetitions;
};

inline std::vector<std::uint64_t> all_block_sizes() {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = kSmallestBlockBytes; s < kLargestBlockBytes; s *= kBlockSizeStep) {
    sizes.push_back(s);
  }
  sizes.push_back(kLargestBlockBytes);
  return sizes;
}

inline MeasurementPlan measurement_plan(bool quick, MemorySpace space) {
  MeasurementPlan plan;
  plan.quick = quick;
  plan.block_sizes = quick ? kQuickBlockSizes : all_block_sizes();
  plan.churn = space == MemorySpace::kDevice ? kDeviceChurn : kHostChurn;
  if (quick) plan.churn.allocations = kQuickChurnAllocations;
  return plan;
}

}  // namespace memrel::bench
