#include "allocators/backend_table.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "allocators/backend_factories.hpp"
#include "allocators/pluggable/backend_file.hpp"
#include "allocators/pluggable/pluggable_allocator.hpp"
#include "allocators/torch/plugin_loader.hpp"
#include "platform/nvml.hpp"

namespace memrel {

const char* backend_kind_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::kBuiltin:
      return "builtin";
    case BackendKind::kTorch:
      return "torch";
    case BackendKind::kRmm:
      return "rmm";
    case BackendKind::kPluggable:
      return "pluggable";
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

Availability rmm_backend_availability() {
#ifdef MEMREL_RMM_UNAVAILABLE_REASON
  return {false, "memrel was built without RMM: " MEMREL_RMM_UNAVAILABLE_REASON};
#else
  return device_backend_availability();
#endif
}

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
        {"rmm-pool",
         BackendKind::kRmm,
         "RMM pool_memory_resource over cudaMalloc, initial size 0 (grows on demand)",
         "nothing: RMM keeps the pool's blocks until it is destroyed",
         kDevice,
         {},
         rmm_backend_availability,
         make_rmm_pool},
        {"rmm-arena",
         BackendKind::kRmm,
         "RMM arena_memory_resource over cudaMalloc, global arena half the free memory",
         "nothing: the arena is reserved whole while it lives",
         kDevice,
         {},
         rmm_backend_availability,
         make_rmm_arena},
        {"rmm-binning",
         BackendKind::kRmm,
         "RMM binning_memory_resource over a pool, bins 256 KiB..4 MiB (RMM's benchmark)",
         "nothing: bins and pool keep their memory",
         kDevice,
         {},
         rmm_backend_availability,
         make_rmm_binning},
        {"rmm-async",
         BackendKind::kRmm,
         "RMM cuda_async_memory_resource (the driver's stream-ordered pool)",
         "cudaMemPoolTrimTo(0) on RMM's pool",
         kDevice,
         {},
         rmm_backend_availability,
         make_rmm_async},
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

std::vector<std::string> folder_backend_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (entry.is_regular_file(type_ec) && entry.path().extension() == ".json")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

BackendInfo backend_from_file(const std::string& path) {
  return pluggable_backend(parse_backend_file(path));
}

std::vector<BackendInfo> folder_backends(const std::string& dir) {
  std::vector<BackendInfo> out;
  for (const auto& path : folder_backend_files(dir)) {
    BackendInfo b = backend_from_file(path);
    for (const auto& earlier : out) {
      if (earlier.name == b.name)
        throw BackendFileError(path, "name",
                               "\"" + b.name + "\" is also the name of " + earlier.file);
    }
    out.push_back(std::move(b));
  }
  return out;
}

BackendInfo resolve_backend(const std::string& name_or_file, const std::string& backends_dir) {
  namespace fs = std::filesystem;
  for (const auto& b : all_backends()) {
    if (b.name == name_or_file) return b;
  }
  // A folder file by its name: the file NAME.json first (its errors are the user's to see),
  // then any file of the folder whose "name" it is.
  std::vector<std::string> folder = folder_backend_files(backends_dir);
  for (const auto& path : folder) {
    if (fs::path(path).stem() == name_or_file) {
      BackendInfo b = backend_from_file(path);
      if (b.name == name_or_file) return b;
    }
  }
  std::string folder_names;
  for (const auto& path : folder) {
    try {
      BackendInfo b = backend_from_file(path);
      if (b.name == name_or_file) return b;
      folder_names += ", " + b.name;
    } catch (const BackendFileError&) {
      // Named by another file; `memrel list` shows it as invalid.
    }
  }
  std::error_code ec;
  // A FIFO or a device too: the reader refuses it by the input rules, naming what it is.
  if (fs::exists(name_or_file, ec) && !fs::is_directory(name_or_file, ec))
    return backend_from_file(name_or_file);
  throw std::invalid_argument("unknown backend '" + name_or_file +
                              "' (valid: " + backend_names_joined() + folder_names +
                              "; or a backend file: docs/pluggable-backends.md)");
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
