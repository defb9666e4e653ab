// Host memory: glibc's malloc, as a reference a CPU machine can run, and null, memrel's own
// overhead.
#include "allocators/availability.hpp"
#include "allocators/backend_family.hpp"
#include "allocators/host/host_backends.hpp"

namespace memrel {
namespace {

class HostFamily : public BackendFamily {
 public:
  std::string name() const override { return "host"; }

  std::vector<BackendInfo> backends() const override {
    const std::string family = name();
    return {
        {"host-malloc",
         family,
         "glibc malloc/free, default settings",
         "malloc_trim(0)",
         MemorySpace::kHost,
         {},
         host_backend_availability,
         make_host_malloc},
        {"host-malloc-retain",
         family,
         "glibc malloc with mmap and auto-trim off (caches like a GPU allocator)",
         "malloc_trim(0)",
         MemorySpace::kHost,
         {},
         host_backend_availability,
         make_host_malloc_retain},
        {"null",
         family,
         "addresses in one preallocated block; measures memrel's own overhead",
         "nothing: a no-op",
         MemorySpace::kHost,
         {},
         host_backend_availability,
         make_null},
    };
  }
};

}  // namespace

const BackendFamily& host_family() {
  static const HostFamily family;
  return family;
}

}  // namespace memrel
