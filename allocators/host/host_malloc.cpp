// host-malloc: glibc malloc/free with glibc's default settings, or with the settings of a
// configuration (host-malloc:trim_threshold=0,...: host_family.cpp), applied with mallopt as the
// cell starts. host-malloc-retain is such a configuration.
//
// Release: malloc_trim(0). With the defaults, large blocks (above the mmap threshold, 128 KiB
// growing to 32 MiB) are mmapped and return to the kernel at free, so release often finds nothing
// to return. Usage: mallinfo2 (see host_malloc_allocator.hpp); device used is the resident set
// size.
#include "allocators/host/host_backends.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_host_malloc(const MalloptSettings& settings) {
  return std::make_unique<HostMallocAllocator>(settings);
}

}  // namespace memrel
