#include "allocators/cuda/cuda_pool_allocator.hpp"

#include "allocators/cuda/cuda_allocation_check.hpp"

namespace memrel {

CudaPoolAllocator::CudaPoolAllocator(std::uint64_t release_threshold) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  check_cuda(cudaMemPoolCreate(&pool_, &props), "cudaMemPoolCreate");
  check_cuda(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &release_threshold),
             "cudaMemPoolSetAttribute(ReleaseThreshold)");
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaPoolAllocator::~CudaPoolAllocator() {
  // Destructors must not throw; a failing teardown at cell exit changes no figure.
  cudaStreamSynchronize(stream_);
  cudaStreamDestroy(stream_);
  cudaMemPoolDestroy(pool_);
}

void* CudaPoolAllocator::allocate(std::size_t bytes) {
  void* p = nullptr;
  check_cuda_allocation(cudaMallocFromPoolAsync(&p, bytes, pool_, stream_),
                        "cudaMallocFromPoolAsync", bytes);
  return p;
}

void CudaPoolAllocator::deallocate(void* p, std::size_t) {
  check_cuda(cudaFreeAsync(p, stream_), "cudaFreeAsync");
}

void CudaPoolAllocator::release() {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  check_cuda(cudaMemPoolTrimTo(pool_, 0), "cudaMemPoolTrimTo");
}

void CudaPoolAllocator::synchronize() {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

void CudaPoolAllocator::fill(void* p, std::size_t bytes) {
  check_cuda(cudaMemsetAsync(p, 0x5a, bytes, stream_), "cudaMemsetAsync");
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

Usage CudaPoolAllocator::usage() const {
  std::uint64_t used = 0, reserved = 0;
  check_cuda(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &used),
             "cudaMemPoolGetAttribute(UsedMemCurrent)");
  check_cuda(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved),
             "cudaMemPoolGetAttribute(ReservedMemCurrent)");
  return {used, reserved};
}

}  // namespace memrel
