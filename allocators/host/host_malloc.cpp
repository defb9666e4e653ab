// host-malloc: glibc malloc/free with glibc's default settings.
//
// Release: malloc_trim(0). Large blocks (above the mmap threshold, 128 KiB growing to 32 MiB)
// are mmapped and return to the kernel at free, so release often finds nothing to return.
// Usage: mallinfo2 (see host_malloc_allocator.hpp); device used is the resident set size.
#include "allocators/host/host_backends.hpp"
#include "allocators/host/host_malloc_allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_host_malloc() {
  return std::make_unique<HostMallocAllocator>(false);
}

}  // namespace memrel
