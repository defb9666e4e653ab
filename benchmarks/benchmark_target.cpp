#include "benchmarks/benchmark_target.hpp"

namespace memrel::bench {
namespace {
int failures = 0;
}  // namespace

std::string benchmark_name(const std::string& operation, const std::string& backend,
                           const std::string& mode, std::uint64_t bytes) {
  return operation + "/" + backend + "/" + mode + "/" + std::to_string(bytes);
}

void report_failure(benchmark::State& state, const std::string& why) {
  ++failures;
  state.SkipWithError(why.c_str());  // 1.7.1 takes const char*, 1.8 std::string
}

int failure_count() { return failures; }

benchmark::Counter byte_counter(double bytes) {
  return benchmark::Counter(bytes, benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
}

void set_block_counters(benchmark::State& state, const BlockFigures& figures) {
  state.counters["bytes"] = byte_counter(static_cast<double>(figures.bytes));
  if (const auto& reserved = figures.after_timed_operation.reserved) {
    state.counters["reserved"] = byte_counter(static_cast<double>(*reserved));
    state.counters["overhead"] = byte_counter(
        static_cast<double>(*reserved) - static_cast<double>(figures.live_after_timed_operation));
  }
  if (figures.reserved_with_block_live) {
    state.counters["peak_reserved"] =
        byte_counter(static_cast<double>(*figures.reserved_with_block_live));
  }
}

std::optional<std::uint64_t> reserved_with_block_live(Allocator& allocator, std::uint64_t bytes) {
  void* block = allocator.allocate(bytes);
  allocator.synchronize();
  const std::optional<std::uint64_t> reserved = allocator.usage().reserved;
  allocator.deallocate(block, bytes);
  allocator.synchronize();
  return reserved;
}

void start_from_empty_cache(Allocator& allocator) {
  allocator.release();
  allocator.synchronize();
}

}  // namespace memrel::bench
