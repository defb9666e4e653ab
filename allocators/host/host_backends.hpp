// The host family's factories, one per file of this folder.
#pragma once

#include <memory>

#include "allocators/allocator.hpp"
#include "allocators/host/host_malloc_allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_host_malloc(const MalloptSettings& settings);
std::unique_ptr<Allocator> make_null();

}  // namespace memrel
