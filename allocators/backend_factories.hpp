// The factories of the built-in backends, one per file under allocators/cuda and allocators/host.
// Their names, descriptions and release rules live in one place: the rows of backend_table.cpp.
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
