#include "allocators/registry.hpp"

#include <stdexcept>

#include "allocators/backends.hpp"
#include "allocators/torch_plugin_loader.hpp"
#include "harness/nvml.hpp"

namespace memrel {

Availability device_backend_availability() {
#ifndef MEMREL_HAVE_CUDA
  return {false, "memrel was built without the CUDA toolkit"};
#else
  nvml::Loaded loaded = nvml::query_system();
  if (!loaded.system) return {false, "no CUDA device: " + loaded.error};
  if (loaded.system->gpus.empty()) return {false, "no CUDA device: NVML lists no GPU"};
  return {true, ""};
#endif
}

Availability host_backend_availability() { return {true, ""}; }

const std::vector<BackendInfo>& all_backends() {
  static const std::vector<BackendInfo> backends = {
      {"cuda-malloc",
       "cudaMalloc/cudaFree; nothing cached, release is a no-op",
       MemorySpace::kDevice,
       {},
       device_backend_availability,
       make_cuda_malloc},
      {"cuda-async",
       "cudaMallocAsync on a private pool, release threshold 0 (frees at sync)",
       MemorySpace::kDevice,
       {},
       device_backend_availability,
       make_cuda_async},
      {"cuda-async-retain",
       "cudaMallocAsync pool with threshold UINT64_MAX; release = cudaMemPoolTrimTo(0)",
       MemorySpace::kDevice,
       {},
       device_backend_availability,
       make_cuda_async_retain},
      {"host-malloc",
       "glibc malloc/free, default settings; release = malloc_trim(0)",
       MemorySpace::kHost,
       {},
       host_backend_availability,
       make_host_malloc},
      {"host-malloc-retain",
       "glibc malloc with mmap and auto-trim off (caches like a GPU allocator); release = "
       "malloc_trim(0)",
       MemorySpace::kHost,
       {},
       host_backend_availability,
       make_host_malloc_retain},
      {"null",
       "returns addresses in one preallocated block; measures memrel's own overhead",
       MemorySpace::kHost,
       {},
       host_backend_availability,
       make_null},
      torch_backend("torch-native"),
      torch_backend("torch-expandable"),
      torch_backend("torch-gc"),
      torch_backend("torch-async"),
  };
  return backends;
}

std::string backend_names_joined() {
  std::string names;
  for (const auto& b : all_backends()) names += (names.empty() ? "" : ", ") + b.name;
  return names;
}

const BackendInfo& find_backend(const std::string& name) {
  for (const auto& b : all_backends()) {
    if (b.name == name) return b;
  }
  throw std::invalid_argument("unknown backend '" + name + "' (valid: " + backend_names_joined() +
                              ")");
}

}  // namespace memrel
