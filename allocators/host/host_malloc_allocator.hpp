// glibc malloc/free, shared by host-malloc, its configurations (host-malloc:KEY=VALUE,...) and
// host-malloc-retain.
//
// These backends make the whole pipeline real on a machine without a GPU: the same workloads,
// probes (resident set size stands in for device used) and metrics, against an allocator whose
// release (malloc_trim) is as real as emptyCache.
#pragma once

#include <utility>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel {

// mallopt(param, value) calls, in order: glibc's settings for this cell (host_family.cpp says
// which key is which parameter). Empty: glibc's defaults.
using MalloptSettings = std::vector<std::pair<int, int>>;

class HostMallocAllocator : public Allocator {
 public:
  // Applies `settings` with mallopt; throws std::runtime_error naming the one glibc refused. The
  // cell is a process of its own, so these settings touch no other backend. host-malloc-retain
  // turns mmap and automatic trimming off, so freed memory stays in the heap (a cache, like a GPU
  // caching allocator's) until release() calls malloc_trim(0).
  explicit HostMallocAllocator(const MalloptSettings& settings);

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  void release() override;
  void fill(void* p, std::size_t bytes) override;
  // From mallinfo2: allocated = in-use heap + mmapped bytes, reserved = heap arena + mmapped.
  Usage usage() const override;
  MemorySpace space() const override { return MemorySpace::kHost; }
};

}  // namespace memrel
