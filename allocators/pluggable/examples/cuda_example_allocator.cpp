// An example pluggable allocator for device memory: what a user brings to memrel as a shared
// library (libmemrel_pluggable_cuda_example.so, benchmarks/backends/pluggable-cuda-example.json),
// and what torch.cuda.memory.CUDAPluggableAllocator(path, "memrel_cuda_example_alloc",
// "memrel_cuda_example_free") could load as well. It knows nothing of memrel; it exports
// PyTorch's pluggable-allocator signatures and memrel's optional symbols, with C linkage and
// default visibility, and nothing else.
//
// Why it exists: the device twin of the host example, so the pluggable path is measured against
// the driver on a GPU. A tiny caching allocator over cudaMalloc: requests are rounded up to
// 2 MiB; a freed block goes to a free list keyed by its rounded size and is reused by the next
// request of that size, so "del without release" keeps the device memory (reserved); release()
// cudaFree()s every cached block. allocated = bytes of live blocks, reserved = live + cached.
// Deliberately simple: one device (the current one), and not stream-aware (a block freed on one
// stream is reused at once, which is only safe on a single stream such as the legacy default
// stream memrel uses).
#include <cuda_runtime_api.h>
#include <sys/types.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "example_slowdown.hpp"

#define EXAMPLE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr size_t kGranule = size_t{2} << 20;

struct Cache {
  std::mutex mutex;
  std::map<size_t, std::vector<void*>> free_lists;  // rounded size -> cached blocks
  std::unordered_map<void*, size_t> live;           // block -> rounded size
  size_t allocated = 0, reserved = 0;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: cudaFree after the runtime shut down fails
  return *c;
}

size_t rounded(ssize_t size) {
  size_t s = size <= 0 ? 1 : static_cast<size_t>(size);
  return (s + kGranule - 1) / kGranule * kGranule;
}

}  // namespace

EXAMPLE_EXPORT void* memrel_cuda_example_alloc(ssize_t size, int /*device*/, void* /*stream*/) {
  memrel_example::spin_planted_slowdown();
  Cache& c = cache();
  size_t bytes = rounded(size);
  std::lock_guard<std::mutex> lock(c.mutex);
  void* p = nullptr;
  auto it = c.free_lists.find(bytes);
  if (it != c.free_lists.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
  } else {
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // clear the error: out of memory is the caller's to report
      return nullptr;
    }
    c.reserved += bytes;
  }
  c.live[p] = bytes;
  c.allocated += bytes;
  return p;
}

EXAMPLE_EXPORT void memrel_cuda_example_free(void* ptr, ssize_t /*size*/, int /*device*/,
                                             void* /*stream*/) {
  memrel_example::spin_planted_slowdown();
  if (ptr == nullptr) return;
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.live.find(ptr);
  if (it == c.live.end()) return;  // not ours
  c.free_lists[it->second].push_back(ptr);
  c.allocated -= it->second;
  c.live.erase(it);
}

EXAMPLE_EXPORT void memrel_cuda_example_release(int /*device*/) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto& [bytes, blocks] : c.free_lists) {
    for (void* p : blocks) {
      cudaFree(p);  // synchronises the device: the block is back with the driver on return
      c.reserved -= bytes;
    }
  }
  c.free_lists.clear();
}

EXAMPLE_EXPORT size_t memrel_cuda_example_allocated(int /*device*/) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.allocated;
}

EXAMPLE_EXPORT size_t memrel_cuda_example_reserved(int /*device*/) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.reserved;
}

EXAMPLE_EXPORT void memrel_cuda_example_synchronize(int /*device*/) { cudaDeviceSynchronize(); }
