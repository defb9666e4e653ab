// The host family's factories, one per file of this folder.
#pragma once

#include <memory>

#include "allocators/allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_host_malloc();
std::unique_ptr<Allocator> make_host_malloc_retain();
std::unique_ptr<Allocator> make_null();

}  // namespace memrel
