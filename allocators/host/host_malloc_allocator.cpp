#include "allocators/host/host_malloc_allocator.hpp"

#include <malloc.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace memrel {

HostMallocAllocator::HostMallocAllocator(bool retain) {
  if (retain) {
    // Without this every large block would be its own mmap and return at free(), leaving
    // nothing for release() to do. The cell is a process of its own, so these settings touch
    // no other backend.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    mallopt(M_TOP_PAD, 0);
  }
}

void* HostMallocAllocator::allocate(std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (p == nullptr) throw OutOfMemory(bytes, "malloc returned NULL");
  return p;
}

void HostMallocAllocator::deallocate(void* p, std::size_t) { std::free(p); }

void HostMallocAllocator::release() { malloc_trim(0); }

void HostMallocAllocator::fill(void* p, std::size_t bytes) { std::memset(p, 0x5a, bytes); }

Usage HostMallocAllocator::usage() const {
  struct mallinfo2 info = mallinfo2();
  return {static_cast<std::uint64_t>(info.uordblks + info.hblkhd),
          static_cast<std::uint64_t>(info.arena + info.hblkhd)};
}

}  // namespace memrel
