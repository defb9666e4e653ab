// What every benchmark acts on, how it is named, and how it reports bytes and failures.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>

#include "allocators/allocator.hpp"
#include "benchmarks/measurement_rules.hpp"
#include "benchmarks/peak_reserved_memory_manager.hpp"

namespace memrel::bench {

// One backend in one process: PyTorch reads its allocator settings once per process, so a
// process never measures two backends.
struct BenchmarkTarget {
  std::string backend;  // its name in the backend table, the second field of every benchmark name
  Allocator& allocator;
  PeakReservedMemoryManager& memory;
  MeasurementPlan plan;
};

// "<operation>/<backend>/<mode>/<bytes>", bytes as an exact integer: the contract with the plots
// and the gate (docs/benchmarks.md). Google Benchmark appends "/manual_time" to the name it
// writes, and "_mean" etc. to aggregates; readers take the first four fields of run_name.
std::string benchmark_name(const std::string& operation, const std::string& backend,
                           const std::string& mode, std::uint64_t bytes);

// Records the run as failed with `why` (Google Benchmark writes it as the run's error) and
// counts it, so that memrel_bench can exit with a failure after running the rest.
void report_failure(benchmark::State& state, const std::string& why);
int failure_count();

// Byte figures: exact in the JSON (a double holds every integer below 2^53), shown with binary
// prefixes on the console.
benchmark::Counter byte_counter(double bytes);

// What a one-block benchmark reports besides its time.
struct BlockFigures {
  std::uint64_t bytes = 0;      // the block size
  Usage after_timed_operation;  // the allocator's view right after the first timed op
  std::uint64_t live_after_timed_operation = 0;  // bytes the benchmark held live at that moment
  std::optional<std::uint64_t> reserved_with_block_live;
};

// Counters bytes, reserved (after the timed operation), overhead (reserved - live bytes then)
// and peak_reserved (while a block is live); the last three only where the allocator keeps a
// reserved figure.
void set_block_counters(benchmark::State& state, const BlockFigures& figures);

// The allocator's reserved bytes while one block of `bytes` is live, from one untimed
// allocation: what the memory run reports as max_bytes_used, kept as a counter as well because
// Google Benchmark keeps each repetition's MemoryManager result behind a pointer into a vector
// that later repetitions reallocate, and may write freed memory as an earlier repetition's
// max_bytes_used (seen with 1.7.1).
std::optional<std::uint64_t> reserved_with_block_live(Allocator& allocator, std::uint64_t bytes);

// Gives cached memory back and waits for it, so a benchmark starts from what the allocator
// holds with nothing cached, whatever ran before it in the process.
void start_from_empty_cache(Allocator& allocator);

}  // namespace memrel::bench
