// host-malloc-retain: glibc malloc configured to cache, the host analogue of a GPU caching
// allocator.
//
// Release: malloc_trim(0), which returns the heap's free top and madvises free pages inside it.
// Until then, freed memory stays resident: "del without empty_cache" on the host.
// Usage: mallinfo2; device used is the resident set size.
#include "allocators/host/host_backends.hpp"
#include "allocators/host/host_malloc_allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_host_malloc_retain() {
  return std::make_unique<HostMallocAllocator>(true);
}

}  // namespace memrel
