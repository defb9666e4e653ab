#include "benchmarks/peak_reserved_memory_manager.hpp"

#include <algorithm>

namespace memrel::bench {

void PeakReservedMemoryManager::Start() {
  recording_ = true;
  peak_reserved_ = 0;
  allocations_ = 0;
  requested_bytes_ = 0;
  // No sample here: what the previous run left cached is not this run's doing, and every
  // benchmark starts by releasing it.
}

void PeakReservedMemoryManager::sample_reserved() {
  if (auto reserved = allocator_.usage().reserved)
    peak_reserved_ = std::max(peak_reserved_, *reserved);
}

void PeakReservedMemoryManager::fill(Result& result) {
  sample_reserved();
  recording_ = false;
  result.num_allocs = allocations_;
  result.max_bytes_used = static_cast<std::int64_t>(peak_reserved_);
  result.total_allocated_bytes = static_cast<std::int64_t>(requested_bytes_);
  // net_heap_growth stays TombstoneValue ("not available"): reserved after minus before would
  // mostly measure what the benchmark's last free left cached, which `reserved` already says.
}

#ifdef MEMREL_BENCHMARK_STOP_BY_REFERENCE
void PeakReservedMemoryManager::Stop(Result& result) { fill(result); }
#else
void PeakReservedMemoryManager::Stop(Result* result) { fill(*result); }
#endif

}  // namespace memrel::bench
