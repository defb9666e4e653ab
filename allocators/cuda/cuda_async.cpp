// cuda-async: cudaMallocAsync on a private pool with release threshold 0.
//
// Release: happens by itself. With threshold 0 the pool hands every free byte back to the driver
// at the next synchronisation, so an explicit release has nothing left to return; its trim is
// still issued so the step is comparable with cuda-async-retain.
// Usage: the pool's own UsedMemCurrent / ReservedMemCurrent (reservations come in 32 MiB chunks
// on Hopper, hence 384 MiB reserved for 360 MiB asked).
#include "allocators/cuda/cuda_backends.hpp"
#include "allocators/cuda/cuda_pool_allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_cuda_async() { return std::make_unique<CudaPoolAllocator>(0); }

}  // namespace memrel
