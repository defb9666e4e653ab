// The configurations of PyTorch's CUDA caching allocator that memrel runs as backends: the four
// named variants (aliases of torch-native's settings) and any torch-native:KEY=VALUE,... (the
// settings are declared, checked and named canonically in torch_family.cpp).
//
// Read by both sides of the plugin boundary: the backend table (memrel_allocators, no libtorch)
// takes each configuration's environment from here, and the plugin (allocators/torch/) checks at
// cell start that the allocator really runs what the configuration says. Header-only on purpose:
// the plugin links no memrel library.
//
// PyTorch reads its allocator settings once, when libc10_cuda.so loads (the backend choice) or
// on first use (the rest), so a variant cannot be chosen from inside a running process: each
// runs in its own cell process, which the runner starts with its `alloc_conf` in both
// PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF (pytorch issue 183387: some versions read
// only one of them; 2.11 reads PYTORCH_CUDA_ALLOC_CONF first, then PYTORCH_ALLOC_CONF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace memrel {

// Bumped whenever allocator.hpp or the plugin's entry points change, so that a stale
// libmemrel_torch.so is refused with a message instead of crashing through a changed vtable.
// 5: memrel_torch_make takes a configuration's name (torch-native:KEY=VALUE,...) as well.
constexpr int kTorchPluginAbi = 5;

// The backend every torch configuration configures.
inline constexpr const char* kTorchRoot = "torch-native";

struct TorchVariant {
  const char* name;         // the backend's name
  const char* description;  // one line, for `memrel list`
  const char* release;      // what release() does, one line
  const char* settings;     // torch-native's settings it stands for, canonical (KEY=VALUE,...)
};

// torch-gc's values, and why:
// - garbage_collection_threshold:0.6 and max_split_size_mb:128 are the pair PyTorch users are
//   most often told to set against fragmentation and "reserved but unallocated" memory (forum
//   and tooling advice, copied widely); memrel measures what that advice buys.
// - In 2.11 the collector only runs when the allocator has a per-process memory limit
//   (CUDACachingAllocator.cpp: `allowed_memory_maximum.has_value() &&
//   garbage_collection_threshold() > 0`), so 0.6 alone changes nothing. The variant sets
//   per_process_memory_fraction:0.9: collection starts once reserved passes 0.6 x 0.9 = 54% of
//   the device (76 GiB of an H200), and the cap, 90%, is above every workload in
//   benchmarks/workloads (benchmarks/workloads/torch-gc-pressure.json crosses the threshold).
// - max_split_size_mb:128: cached blocks of 128 MiB and more are never split, so a large freed
//   block is either reused whole or left for release; smaller requests cannot pin it.
inline constexpr TorchVariant kTorchVariants[] = {
    {"torch-native", "PyTorch CUDA caching allocator, default settings", "emptyCache", ""},
    {"torch-expandable",
     "PyTorch caching allocator, expandable_segments:True (cuMemMap, 20 MiB pages)", "emptyCache",
     "expandable_segments=True"},
    {"torch-gc", "PyTorch caching allocator, gc threshold 0.6, max_split_size_mb:128, fraction 0.9",
     "emptyCache",
     "garbage_collection_threshold=0.6,max_split_size_mb=128,per_process_memory_fraction=0.9"},
    {"torch-async", "PyTorch with backend:cudaMallocAsync (the device's default pool)",
     "emptyCache, which trims the pool", "backend=cudaMallocAsync"},
};

inline const TorchVariant* find_torch_variant(const std::string& name) {
  for (const TorchVariant& v : kTorchVariants) {
    if (name == v.name) return &v;
  }
  return nullptr;
}

// KEY=VALUE,... (canonical, as the backend table writes it) into its settings.
inline std::map<std::string, std::string> torch_settings_from_text(const std::string& text) {
  std::map<std::string, std::string> settings;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string piece = text.substr(start, comma - start);
    std::size_t eq = piece.find('=');
    if (eq != std::string::npos) settings[piece.substr(0, eq)] = piece.substr(eq + 1);
    start = comma + 1;
  }
  return settings;
}

// A configuration as PyTorch must run it: what goes into PYTORCH_ALLOC_CONF, and what the running
// allocator must report, checked by the plugin at cell start.
struct TorchConfiguration {
  std::string name;        // the backend's name
  std::string alloc_conf;  // KEY:VALUE,... keys sorted; empty: PyTorch's defaults, nothing set
  std::string allocator_name = "native";  // CUDAAllocator::name(): "native" or "cudaMallocAsync"
  bool expandable_segments = false;
  double garbage_collection_threshold = 0;     // 0: off
  std::uint64_t max_split_size_mb = 0;         // 0: unlimited (PyTorch's SIZE_MAX)
  double memory_fraction = 1;                  // per_process_memory_fraction; 1: no cap
  std::uint64_t roundup_power2_divisions = 0;  // 0: off
};

inline TorchConfiguration torch_configuration(const std::string& name,
                                              const std::map<std::string, std::string>& settings) {
  TorchConfiguration c;
  c.name = name;
  for (const auto& [key, value] : settings) {
    c.alloc_conf += (c.alloc_conf.empty() ? "" : ",") + key + ":" + value;
    if (key == "backend") c.allocator_name = value;
    if (key == "expandable_segments") c.expandable_segments = value == "True";
    if (key == "garbage_collection_threshold")
      c.garbage_collection_threshold = std::atof(value.c_str());
    if (key == "max_split_size_mb") c.max_split_size_mb = std::strtoull(value.c_str(), nullptr, 10);
    if (key == "per_process_memory_fraction") c.memory_fraction = std::atof(value.c_str());
    if (key == "roundup_power2_divisions")
      c.roundup_power2_divisions = std::strtoull(value.c_str(), nullptr, 10);
  }
  return c;
}

// The configuration a backend name stands for: a variant, or torch-native:KEY=VALUE,...; empty
// for any other name.
inline std::optional<TorchConfiguration> find_torch_configuration(const std::string& name) {
  if (const TorchVariant* v = find_torch_variant(name))
    return torch_configuration(name, torch_settings_from_text(v->settings));
  const std::string prefix = std::string(kTorchRoot) + ":";
  if (name.compare(0, prefix.size(), prefix) == 0)
    return torch_configuration(name, torch_settings_from_text(name.substr(prefix.size())));
  return std::nullopt;
}

}  // namespace memrel
