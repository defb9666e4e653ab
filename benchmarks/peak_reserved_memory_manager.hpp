// A Google Benchmark MemoryManager that reports the backend's peak reserved bytes.
//
// Google Benchmark runs each benchmark once more between Start() and Stop() (at most 16
// iterations, timing discarded) and writes what Stop() fills in beside the repetition:
// max_bytes_used, allocs_per_iter, total_allocated_bytes. Its own allocations are not the point
// here; what the allocator under test holds from the driver is, so the benchmarks report their
// allocations and let this class sample Allocator::usage().reserved while it records.
//
// Stop's signature differs between the Google Benchmark versions memrel builds with: 1.7.1
// (Debian) has a pure Stop(Result*), 1.8 a pure Stop(Result&). benchmarks/CMakeLists.txt
// detects which by compiling both and defines MEMREL_BENCHMARK_STOP_BY_REFERENCE for 1.8.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

#include "allocators/allocator.hpp"

namespace memrel::bench {

class PeakReservedMemoryManager final : public benchmark::MemoryManager {
 public:
  explicit PeakReservedMemoryManager(const Allocator& allocator) : allocator_(allocator) {}

  // True only inside Google Benchmark's memory run; benchmarks read it once, before their loop.
  bool recording() const { return recording_; }

  // Both are no-ops unless recording, so the timed runs pay one predictable branch.
  void note_allocation(std::uint64_t bytes) {
    if (!recording_) return;
    ++allocations_;
    requested_bytes_ += bytes;
    sample_reserved();
  }
  void note_free_or_release() {
    if (recording_) sample_reserved();
  }

  void Start() override;
#ifdef MEMREL_BENCHMARK_STOP_BY_REFERENCE
  void Stop(Result& result) override;
#else
  // 1.7.1 also declares Stop(Result&), which forwards here; the using keeps it visible.
  using benchmark::MemoryManager::Stop;
  void Stop(Result* result) override;
#endif

 private:
  void sample_reserved();
  void fill(Result& result);

  const Allocator& allocator_;
  bool recording_ = false;
  std::uint64_t peak_reserved_ = 0;
  std::int64_t allocations_ = 0;
  std::uint64_t requested_bytes_ = 0;
};

}  // namespace memrel::bench
