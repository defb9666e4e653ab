// cuda-async-retain: cudaMallocAsync on a private pool with release threshold UINT64_MAX.
//
// Release: the pool keeps every freed byte reserved, as a caching allocator does, until
// release() synchronises and calls cudaMemPoolTrimTo(pool, 0).
// Usage: the pool's UsedMemCurrent / ReservedMemCurrent.
#include <cstdint>

#include "allocators/cuda/cuda_backends.hpp"
#include "allocators/cuda/cuda_pool_allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_cuda_async_retain() {
  return std::make_unique<CudaPoolAllocator>(UINT64_MAX);
}

}  // namespace memrel
