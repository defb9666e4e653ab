// The RMM family's factories (rmm_resources.cpp; rmm_resources_none.cpp in a build without RMM,
// where they say so at run time).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "allocators/allocator.hpp"

namespace memrel {

// pool_memory_resource over cudaMalloc: `initial_bytes` taken at once, growing on demand up to
// `maximum_bytes` (none: until the device is full).
std::unique_ptr<Allocator> make_rmm_pool(std::uint64_t initial_bytes,
                                         std::optional<std::uint64_t> maximum_bytes);
std::unique_ptr<Allocator> make_rmm_arena();
std::unique_ptr<Allocator> make_rmm_binning();
std::unique_ptr<Allocator> make_rmm_async();

}  // namespace memrel
