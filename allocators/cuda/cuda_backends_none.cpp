// The CUDA backends' factories in a build without the CUDA toolkit: they say so at run time.
#include "allocators/cuda/cuda_backends.hpp"

namespace memrel {
namespace {
[[noreturn]] void no_cuda() {
  throw BackendUnavailable(
      "memrel was built without the CUDA toolkit (CUDAToolkit not found at configure time)");
}
}  // namespace

std::unique_ptr<Allocator> make_cuda_malloc() { no_cuda(); }
std::unique_ptr<Allocator> make_cuda_async() { no_cuda(); }
std::unique_ptr<Allocator> make_cuda_async_retain() { no_cuda(); }

}  // namespace memrel
