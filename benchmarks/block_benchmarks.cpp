// pair, alloc and free: the latency of one block of one size, with the cache warm or cold.
//
//   pair   allocate + synchronize + deallocate + synchronize, timed together
//   alloc  allocate + synchronize timed; the free after it is not
//   free   deallocate + synchronize timed; the allocation before it is not
//
// warm: one allocate/deallocate of the size before the loop, so a caching allocator serves every
// timed allocation from its cache. cold: release() before every timed operation, so the
// allocation goes to the driver or the OS (and for `free`, the block freed is a fresh one).
// Allocators that cache nothing (cuda-malloc, null) measure the same in both modes.
// alloc and free exist apart from pair because they differ: cudaFree synchronises the device
// and costs more than cudaMalloc.
#include <exception>
#include <optional>

#include "benchmarks/benchmark_families.hpp"
#include "benchmarks/timing.hpp"

namespace memrel::bench {
namespace {

enum class BlockOperation { kPair, kAlloc, kFree };

const char* operation_name(BlockOperation operation) {
  switch (operation) {
    case BlockOperation::kPair:
      return "pair";
    case BlockOperation::kAlloc:
      return "alloc";
    case BlockOperation::kFree:
      return "free";
  }
  return "?";
}

struct BlockCase {
  BlockOperation operation;
  CacheState cache;
  std::uint64_t bytes;
};

// What the allocator said right after the first iteration's timed operation. Every iteration
// starts from the same state, so one sample stands for all; sampling every iteration would cost
// more than a warm operation (glibc's mallinfo2 walks the heap's free lists).
struct AfterTimedOperation {
  Usage usage;
  std::uint64_t live_bytes = 0;
};

void before_each_operation(Allocator& allocator, CacheState cache) {
  if (cache == CacheState::kCold) start_from_empty_cache(allocator);
}

AfterTimedOperation time_pairs(benchmark::State& state, const BenchmarkTarget& target,
                               const BlockCase& c) {
  Allocator& allocator = target.allocator;
  std::optional<Usage> sampled;
  for (auto _ : state) {
    before_each_operation(allocator, c.cache);
    state.SetIterationTime(timed_seconds(allocator, [&] {
      void* block = allocator.allocate(c.bytes);
      allocator.synchronize();
      // The block's peak is only visible between the two calls; in timed runs this is a branch.
      target.memory.note_allocation(c.bytes);
      benchmark::DoNotOptimize(block);
      allocator.deallocate(block, c.bytes);
    }));
    target.memory.note_free_or_release();
    if (!sampled) sampled = allocator.usage();
  }
  return {sampled.value_or(Usage{}), 0};
}

AfterTimedOperation time_allocations(benchmark::State& state, const BenchmarkTarget& target,
                                     const BlockCase& c) {
  Allocator& allocator = target.allocator;
  std::optional<Usage> sampled;
  for (auto _ : state) {
    before_each_operation(allocator, c.cache);
    void* block = nullptr;
    state.SetIterationTime(timed_seconds(allocator, [&] { block = allocator.allocate(c.bytes); }));
    target.memory.note_allocation(c.bytes);
    if (!sampled) sampled = allocator.usage();
    allocator.deallocate(block, c.bytes);
    allocator.synchronize();
    target.memory.note_free_or_release();
  }
  return {sampled.value_or(Usage{}), c.bytes};
}

AfterTimedOperation time_frees(benchmark::State& state, const BenchmarkTarget& target,
                               const BlockCase& c) {
  Allocator& allocator = target.allocator;
  std::optional<Usage> sampled;
  for (auto _ : state) {
    before_each_operation(allocator, c.cache);
    void* block = allocator.allocate(c.bytes);
    allocator.synchronize();
    target.memory.note_allocation(c.bytes);
    state.SetIterationTime(timed_seconds(allocator, [&] { allocator.deallocate(block, c.bytes); }));
    target.memory.note_free_or_release();
    if (!sampled) sampled = allocator.usage();
  }
  return {sampled.value_or(Usage{}), 0};
}

void run_block_benchmark(benchmark::State& state, const BenchmarkTarget& target,
                         const BlockCase& c) {
  Allocator& allocator = target.allocator;
  try {
    start_from_empty_cache(allocator);
    if (c.cache == CacheState::kWarm) {
      void* block = allocator.allocate(c.bytes);
      allocator.synchronize();
      allocator.deallocate(block, c.bytes);
      allocator.synchronize();
    }
    AfterTimedOperation after;
    switch (c.operation) {
      case BlockOperation::kPair:
        after = time_pairs(state, target, c);
        break;
      case BlockOperation::kAlloc:
        after = time_allocations(state, target, c);
        break;
      case BlockOperation::kFree:
        after = time_frees(state, target, c);
        break;
    }
    before_each_operation(allocator, c.cache);
    const std::optional<std::uint64_t> peak = reserved_with_block_live(allocator, c.bytes);
    set_block_counters(state, {c.bytes, after.usage, after.live_bytes, peak});
    state.SetItemsProcessed(state.iterations());
  } catch (const std::exception& e) {
    report_failure(state, e.what());
  }
}

}  // namespace

void register_block_benchmarks(const BenchmarkTarget& target) {
  for (BlockOperation operation :
       {BlockOperation::kPair, BlockOperation::kAlloc, BlockOperation::kFree}) {
    for (CacheState cache : {CacheState::kWarm, CacheState::kCold}) {
      for (std::uint64_t bytes : target.plan.block_sizes) {
        const BlockCase c{operation, cache, bytes};
        benchmark::internal::Benchmark* registered = register_manually_timed(
            benchmark_name(operation_name(operation), target.backend, cache_state_name(cache),
                           bytes),
            [&target, c](benchmark::State& state) { run_block_benchmark(state, target, c); });
        if (cache == CacheState::kCold) registered->Iterations(cold_samples(bytes));
      }
    }
  }
}

}  // namespace memrel::bench
