// The environment variables that change what an allocator does, as this process sees them.
// Recorded with every cell and every benchmark file, so two results that differ only because
// someone exported PYTORCH_CUDA_ALLOC_CONF say so.
#pragma once

#include <map>
#include <string>

namespace memrel {

std::map<std::string, std::string> allocator_environment();

}  // namespace memrel
