// CUDA runtime errors as exceptions, with out-of-memory kept apart so a cell can record it as a
// result rather than a failure.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "allocators/allocator.hpp"

namespace memrel {

inline void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(rc) + " (" +
                             cudaGetErrorString(rc) + ")");
  }
}

inline void check_cuda_alloc(cudaError_t rc, const char* what, std::size_t bytes) {
  if (rc == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not blamed for it
    throw OutOfMemory(bytes, what);
  }
  check_cuda(rc, what);
}

}  // namespace memrel
