// glibc malloc/free, shared by the host-malloc and host-malloc-retain backends.
//
// These backends make the whole pipeline real on a machine without a GPU: the same workloads,
// probes (resident set size stands in for device used) and metrics, against an allocator whose
// release (malloc_trim) is as real as emptyCache.
#pragma once

#include "allocators/allocator.hpp"

namespace memrel {

class HostMallocAllocator : public Allocator {
 public:
  // retain = false: glibc defaults; blocks above the mmap threshold go back to the kernel at free.
  // retain = true: mmap disabled and automatic trimming off, so freed memory stays in the heap
  // (a cache, like a GPU caching allocator's) until release() calls malloc_trim(0).
  explicit HostMallocAllocator(bool retain);

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  void release() override;
  void fill(void* p, std::size_t bytes) override;
  // From mallinfo2: allocated = in-use heap + mmapped bytes, reserved = heap arena + mmapped.
  Usage usage() const override;
  MemorySpace space() const override { return MemorySpace::kHost; }
};

}  // namespace memrel
