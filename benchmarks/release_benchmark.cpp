// release: how long release() + synchronize takes to hand one block's worth of cache back.
//
// Each sample allocates and frees a block of `bytes` (untimed), so that a caching allocator holds
// it, then times the release. `bytes` in the name is that block's size; the counter
// reserved_before says what the allocator really held (pools round up: cudaMallocAsync reserves
// 384 MiB for 360 MiB) and reserved what was left. The mode is always `warm`: the cache holds the
// block when the release runs. Allocators that cache nothing (cuda-malloc, host-malloc above the
// mmap threshold) show what a release that finds nothing to do costs, which is a figure too.
#include <exception>
#include <optional>

#include "benchmarks/benchmark_families.hpp"
#include "benchmarks/timing.hpp"

namespace memrel::bench {
namespace {

void run_release_benchmark(benchmark::State& state, const BenchmarkTarget& target,
                           std::uint64_t bytes) {
  Allocator& allocator = target.allocator;
  try {
    start_from_empty_cache(allocator);
    std::optional<std::uint64_t> reserved_before;
    std::optional<Usage> after;
    for (auto _ : state) {
      void* block = allocator.allocate(bytes);
      allocator.synchronize();
      target.memory.note_allocation(bytes);
      allocator.deallocate(block, bytes);
      allocator.synchronize();
      target.memory.note_free_or_release();
      if (!after) reserved_before = allocator.usage().reserved;
      state.SetIterationTime(timed_seconds(allocator, [&] { allocator.release(); }));
      target.memory.note_free_or_release();
      if (!after) after = allocator.usage();
    }
    set_block_counters(
        state, {bytes, after.value_or(Usage{}), 0, reserved_with_block_live(allocator, bytes)});
    if (reserved_before) state.counters["reserved_before"] = byte_counter(*reserved_before);
    state.SetItemsProcessed(state.iterations());
  } catch (const std::exception& e) {
    report_failure(state, e.what());
  }
}

}  // namespace

void register_release_benchmarks(const BenchmarkTarget& target) {
  for (std::uint64_t bytes : target.plan.block_sizes) {
    // Every sample needs a fresh allocation first: the cold rule (measurement_rules.hpp).
    register_manually_timed(
        benchmark_name("release", target.backend, "warm", bytes),
        [&target, bytes](benchmark::State& state) { run_release_benchmark(state, target, bytes); })
        ->Iterations(cold_samples(bytes));
  }
}

}  // namespace memrel::bench
