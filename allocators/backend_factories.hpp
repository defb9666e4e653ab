// The factories of the built-in backends, one per file under allocators/cuda and allocators/host,
// and RMM's four in allocators/rmm/rmm_resources.cpp.
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
std::unique_ptr<Allocator> make_rmm_pool();
std::unique_ptr<Allocator> make_rmm_arena();
std::unique_ptr<Allocator> make_rmm_binning();
std::unique_ptr<Allocator> make_rmm_async();

}  // namespace memrel
