// Torch programs over any device backend: PyTorch's pluggable-allocator interface
// (torch/csrc/cuda/CUDAPluggableAllocator.h: a CUDAPluggableAllocator made current with
// changeCurrentAllocator) with its alloc and free bound to a memrel backend (cuda-malloc, the
// CUDA pools, RMM, a backend file's library). Every tensor of the program then comes from that
// backend, and torch caches nothing: the cache, if any, is the backend's, which is what the
// cell's results say (`program_allocator.cache_layer` = "backend").
//
// torch.cuda.empty_cache() calls the pluggable allocator's reset function, bound here to the
// backend's release(). The peaks are the backend's own figures (usage()), read after every
// allocation, since PyTorch keeps no statistics for a pluggable allocator.
//
// PyTorch can swap its allocator only before its first CUDA allocation, so this happens once per
// process, before anything else of torch touches the device: a cell runs one backend, and the
// runner starts every cell in a fresh process.
#pragma once

#include <string>

#include "allocators/framework_program.hpp"

namespace memrel {

// Runs torch program `name` with its tensors allocated by `backend`. Throws BackendUnavailable
// when torch sees no CUDA device, OutOfMemory when the backend runs out, std::runtime_error for
// torch errors (one line) and when torch's allocator was already in use in this process.
void run_torch_program_over(Allocator& backend, const std::string& name,
                            const std::string& args_json, ProgramContext& context);

}  // namespace memrel
