// CUDA runtime errors as exceptions, with out-of-memory told apart so that callers can record
// it as a result rather than a failure.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace memrel {

inline void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(rc) + " (" +
                             cudaGetErrorString(rc) + ")");
  }
}

// True for cudaErrorMemoryAllocation, whose error state it clears, so that the next CUDA call
// is not blamed for it.
inline bool consume_out_of_memory(cudaError_t rc) {
  if (rc != cudaErrorMemoryAllocation) return false;
  cudaGetLastError();
  return true;
}

}  // namespace memrel
