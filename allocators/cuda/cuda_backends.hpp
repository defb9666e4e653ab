// The CUDA runtime family's factories, one per file of this folder (cuda_backends_none.cpp in a
// build without the toolkit, where they say so at run time).
#pragma once

#include <memory>

#include "allocators/allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_cuda_malloc();
std::unique_ptr<Allocator> make_cuda_async();
std::unique_ptr<Allocator> make_cuda_async_retain();

}  // namespace memrel
