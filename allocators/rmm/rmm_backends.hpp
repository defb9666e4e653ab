// The RMM family's factories (rmm_resources.cpp; rmm_resources_none.cpp in a build without RMM,
// where they say so at run time).
#pragma once

#include <memory>

#include "allocators/allocator.hpp"

namespace memrel {

std::unique_ptr<Allocator> make_rmm_pool();
std::unique_ptr<Allocator> make_rmm_arena();
std::unique_ptr<Allocator> make_rmm_binning();
std::unique_ptr<Allocator> make_rmm_async();

}  // namespace memrel
