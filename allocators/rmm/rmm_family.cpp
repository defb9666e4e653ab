// RAPIDS Memory Manager's resources (librmm-cu13, scripts/install-rmm), each over cudaMalloc or
// the driver's pool, as RMM's own benchmarks configure them.
#include "allocators/availability.hpp"
#include "allocators/backend_family.hpp"
#include "allocators/rmm/rmm_backends.hpp"

namespace memrel {
namespace {

// Device availability, or why this build has no RMM (allocators/rmm/CMakeLists.txt).
Availability rmm_backend_availability() {
#ifdef MEMREL_RMM_UNAVAILABLE_REASON
  return {false, "memrel was built without RMM: " MEMREL_RMM_UNAVAILABLE_REASON};
#else
  return device_backend_availability();
#endif
}

class RmmFamily : public BackendFamily {
 public:
  std::string name() const override { return "rmm"; }

  std::vector<BackendInfo> backends() const override {
    const std::string family = name();
    return {
        {"rmm-pool",
         family,
         "RMM pool_memory_resource over cudaMalloc, initial size 0 (grows on demand)",
         "nothing: RMM keeps the pool's blocks until it is destroyed",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_pool},
        {"rmm-arena",
         family,
         "RMM arena_memory_resource over cudaMalloc, global arena half the free memory",
         "nothing: the arena is reserved whole while it lives",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_arena},
        {"rmm-binning",
         family,
         "RMM binning_memory_resource over a pool, bins 256 KiB..4 MiB (RMM's benchmark)",
         "nothing: bins and pool keep their memory",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_binning},
        {"rmm-async",
         family,
         "RMM cuda_async_memory_resource (the driver's stream-ordered pool)",
         "cudaMemPoolTrimTo(0) on RMM's pool",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_async},
    };
  }
};

}  // namespace

const BackendFamily& rmm_family() {
  static const RmmFamily family;
  return family;
}

}  // namespace memrel
