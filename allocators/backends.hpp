// Factories of the backends, one per file in allocators/. Listed in registry.cpp.
#pragma once

#include <memory>

#include "allocators/allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_cuda_malloc();
std::unique_ptr<Allocator> make_cuda_async();
std::unique_ptr<Allocator> make_cuda_async_retain();
std::unique_ptr<Allocator> make_host_malloc();
std::unique_ptr<Allocator> make_host_malloc_retain();
std::unique_ptr<Allocator> make_null();

}  // namespace memrel
