// cuda-malloc: plain cudaMalloc / cudaFree.
//
// Release: nothing to do. cudaFree returns memory to the driver at once (it synchronises the
// device), so there is never a cache.
// Usage: allocated = reserved = bytes live, counted here; the driver rounds each block up to its
// 2 MiB page, which shows as the gap between reserved and device used.
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

#include "allocators/cuda/cuda_allocation_check.hpp"
#include "allocators/cuda/cuda_backends.hpp"

namespace memrel {
namespace {

class CudaMallocAllocator : public Allocator {
 public:
  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    check_cuda_allocation(cudaMalloc(&p, bytes), "cudaMalloc", bytes);
    live_bytes_ += bytes;
    return p;
  }
  void deallocate(void* p, std::size_t bytes) override {
    check_cuda(cudaFree(p), "cudaFree");
    live_bytes_ -= bytes;
  }
  void release() override {}
  void synchronize() override { check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
  void fill(void* p, std::size_t bytes) override {
    check_cuda(cudaMemset(p, 0x5a, bytes), "cudaMemset");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  Usage usage() const override { return {live_bytes_, live_bytes_}; }
  MemorySpace space() const override { return MemorySpace::kDevice; }

 private:
  std::uint64_t live_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Allocator> make_cuda_malloc() { return std::make_unique<CudaMallocAllocator>(); }

}  // namespace memrel
