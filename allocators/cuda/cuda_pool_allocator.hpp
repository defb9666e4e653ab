// The stream-ordered allocator (cudaMallocAsync) on a pool of memrel's own, shared by the
// cuda-async and cuda-async-retain backends, which differ only in the pool's release threshold.
//
// A private pool, not the device's default one, so that nothing else in the process (a library
// that also uses cudaMallocAsync) shares its reservation and the pool's attributes describe this
// backend alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "allocators/allocator.hpp"

namespace memrel {

class CudaPoolAllocator : public Allocator {
 public:
  // release_threshold: bytes the pool may keep reserved at a synchronisation point. 0 returns
  // everything free at each sync; UINT64_MAX keeps everything until cudaMemPoolTrimTo.
  explicit CudaPoolAllocator(std::uint64_t release_threshold);
  ~CudaPoolAllocator() override;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  // Synchronise first so that pending frees reach the pool, then trim it to nothing.
  void release() override;
  void synchronize() override;
  void fill(void* p, std::size_t bytes) override;
  // cudaMemPoolAttrUsedMemCurrent / cudaMemPoolAttrReservedMemCurrent.
  Usage usage() const override;
  MemorySpace space() const override { return MemorySpace::kDevice; }

 private:
  cudaMemPool_t pool_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace memrel
