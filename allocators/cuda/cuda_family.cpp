// The CUDA runtime's own allocators: cudaMalloc and the stream-ordered pools.
#include "allocators/availability.hpp"
#include "allocators/backend_family.hpp"
#include "allocators/cuda/cuda_backends.hpp"

namespace memrel {
namespace {

class CudaFamily : public BackendFamily {
 public:
  std::string name() const override { return "cuda"; }

  std::vector<BackendInfo> backends() const override {
    const std::string family = name();
    return {
        {"cuda-malloc",
         family,
         "cudaMalloc/cudaFree; nothing cached",
         "nothing to return: a no-op",
         MemorySpace::kDevice,
         {},
         device_backend_availability,
         make_cuda_malloc},
        {"cuda-async",
         family,
         "cudaMallocAsync on a private pool, release threshold 0",
         "frees return at the next sync; trim issued anyway",
         MemorySpace::kDevice,
         {},
         device_backend_availability,
         make_cuda_async},
        {"cuda-async-retain",
         family,
         "cudaMallocAsync on a private pool, release threshold UINT64_MAX (caches)",
         "cudaMemPoolTrimTo(0)",
         MemorySpace::kDevice,
         {},
         device_backend_availability,
         make_cuda_async_retain},
    };
  }
};

}  // namespace

const BackendFamily& cuda_family() {
  static const CudaFamily family;
  return family;
}

}  // namespace memrel
