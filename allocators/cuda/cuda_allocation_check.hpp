// A CUDA allocation call's result as the Allocator interface wants it: OutOfMemory (a result the
// cell records) for cudaErrorMemoryAllocation, std::runtime_error for anything else.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "allocators/allocator.hpp"
#include "platform/cuda_error.hpp"

namespace memrel {

inline void check_cuda_allocation(cudaError_t rc, const char* what, std::size_t bytes) {
  if (consume_out_of_memory(rc)) throw OutOfMemory(bytes, what);
  check_cuda(rc, what);
}

}  // namespace memrel
