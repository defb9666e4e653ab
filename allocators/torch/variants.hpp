// The configurations of PyTorch's CUDA caching allocator that memrel runs as backends.
//
// One table, read by both sides of the plugin boundary: the backend table (memrel_allocators, no
// libtorch) takes each variant's environment from it, and the plugin (allocators/torch/) checks at
// cell start that the allocator really runs what the table says. Header-only on purpose.
//
// PyTorch reads its allocator settings once, when libc10_cuda.so loads (the backend choice) or
// on first use (the rest), so a variant cannot be chosen from inside a running process: each
// runs in its own cell process, which the runner starts with `alloc_conf` in both
// PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF (pytorch issue 183387: some versions read
// only one of them; 2.11 reads PYTORCH_CUDA_ALLOC_CONF first, then PYTORCH_ALLOC_CONF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace memrel {

// Bumped whenever allocator.hpp or the plugin's entry points change, so that a stale
// libmemrel_torch.so is refused with a message instead of crashing through a changed vtable.
constexpr int kTorchPluginAbi = 4;

struct TorchVariant {
  const char* name;         // the backend's name
  const char* description;  // one line, for `memrel list`
  const char* release;      // what release() does, one line
  const char* alloc_conf;   // the allocator settings; empty: PyTorch's defaults, nothing set
  // What the running allocator must report, checked by the plugin at cell start.
  const char* allocator_name;  // CUDAAllocator::name(): "native" or "cudaMallocAsync"
  bool expandable_segments;
  double garbage_collection_threshold;  // 0: off
  std::uint64_t max_split_size_mb;      // 0: unlimited (PyTorch's SIZE_MAX)
  double memory_fraction;               // per_process_memory_fraction; 1: no cap
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
    {"torch-native", "PyTorch CUDA caching allocator, default settings", "emptyCache", "", "native",
     false, 0.0, 0, 1.0},
    {"torch-expandable",
     "PyTorch caching allocator, expandable_segments:True (cuMemMap, 20 MiB pages)", "emptyCache",
     "expandable_segments:True", "native", true, 0.0, 0, 1.0},
    {"torch-gc", "PyTorch caching allocator, gc threshold 0.6, max_split_size_mb:128, fraction 0.9",
     "emptyCache",
     "garbage_collection_threshold:0.6,max_split_size_mb:128,per_process_memory_fraction:0.9",
     "native", false, 0.6, 128, 0.9},
    {"torch-async", "PyTorch with backend:cudaMallocAsync (the device's default pool)",
     "emptyCache, which trims the pool", "backend:cudaMallocAsync", "cudaMallocAsync", false, 0.0,
     0, 1.0},
};

inline const TorchVariant* find_torch_variant(const std::string& name) {
  for (const TorchVariant& v : kTorchVariants) {
    if (name == v.name) return &v;
  }
  return nullptr;
}

}  // namespace memrel
