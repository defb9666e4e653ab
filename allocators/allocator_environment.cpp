#include "allocators/allocator_environment.hpp"

#include <cstdlib>

namespace memrel {

std::map<std::string, std::string> allocator_environment() {
  std::map<std::string, std::string> env;
  for (const char* name : {"CUDA_MODULE_LOADING", "PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF",
                           "CUDA_VISIBLE_DEVICES", "MALLOC_ARENA_MAX"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  return env;
}

}  // namespace memrel
