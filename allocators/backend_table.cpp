#include "allocators/backend_table.hpp"

#include <stdexcept>

#include "allocators/backend_factories.hpp"
#include "allocators/torch/plugin_loader.hpp"
#include "platform/nvml.hpp"

namespace memrel {

const char* backend_kind_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::kBuiltin:
      return "builtin";
    case BackendKind::kTorch:
      return "torch";
  }
  return "?";
}

const char* memory_space_name(MemorySpace space) {
  return space == MemorySpace::kDevice ? "device" : "host";
}

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
  constexpr BackendKind kBuiltin = BackendKind::kBuiltin;
  constexpr MemorySpace kDevice = MemorySpace::kDevice;
  constexpr MemorySpace kHost = MemorySpace::kHost;
  static const std::vector<BackendInfo> backends = [&] {
    std::vector<BackendInfo> rows = {
        {"cuda-malloc",
         kBuiltin,
         "cudaMalloc/cudaFree; nothing cached",
         "nothing to return: a no-op",
         kDevice,
         {},
         device_backend_availability,
         make_cuda_malloc},
        {"cuda-async",
         kBuiltin,
         "cudaMallocAsync on a private pool, release threshold 0",
         "frees return at the next sync; trim issued anyway",
         kDevice,
         {},
         device_backend_availability,
         make_cuda_async},
        {"cuda-async-retain",
         kBuiltin,
         "cudaMallocAsync on a private pool, release threshold UINT64_MAX (caches)",
         "cudaMemPoolTrimTo(0)",
         kDevice,
         {},
         device_backend_availability,
         make_cuda_async_retain},
        {"host-malloc",
         kBuiltin,
         "glibc malloc/free, default settings",
         "malloc_trim(0)",
         kHost,
         {},
         host_backend_availability,
         make_host_malloc},
        {"host-malloc-retain",
         kBuiltin,
         "glibc malloc with mmap and auto-trim off (caches like a GPU allocator)",
         "malloc_trim(0)",
         kHost,
         {},
         host_backend_availability,
         make_host_malloc_retain},
        {"null",
         kBuiltin,
         "addresses in one preallocated block; measures memrel's own overhead",
         "nothing: a no-op",
         kHost,
         {},
         host_backend_availability,
         make_null},
    };
    for (const TorchVariant& v : kTorchVariants) rows.push_back(torch_backend(v));
    return rows;
  }();
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

std::string backend_table_markdown() {
  std::string out = "| backend | kind | memory | what it is | release |\n|---|---|---|---|---|\n";
  for (const auto& b : all_backends()) {
    out += "| `" + b.name + "` | " + backend_kind_name(b.kind) + " | " +
           memory_space_name(b.space) + " | " + b.description + " | " + b.release + " |\n";
  }
  return out;
}

}  // namespace memrel
