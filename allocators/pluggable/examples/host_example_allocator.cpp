// An example pluggable allocator for host memory: what a user brings to memrel as a shared
// library (libmemrel_pluggable_host_example.so, benchmarks/backends/pluggable-host-example.json).
// It knows nothing of memrel; it exports PyTorch's pluggable-allocator signatures and memrel's
// optional symbols, with C linkage and default visibility, and nothing else.
//
// Why it exists: it proves the pluggable path on any machine (CI has no GPU) and shows the
// caching behaviour memrel measures. A tiny caching allocator: blocks are rounded up to 2 MiB and
// mapped with mmap; a freed block goes to a free list keyed by its rounded size and is reused by
// the next request of that size, so "del without release" leaves it resident (reserved);
// release() unmaps every cached block. allocated = bytes of live blocks, reserved = live +
// cached, both rounded sizes. Not stream- or device-aware: the stream and device are ignored.
//
// TEST ONLY: MEMREL_TEST_HOST_EXAMPLE_DELAY_US=N makes every allocation wait N microseconds
// (a busy wait, read once when the library loads), so that `memrel ab`'s tests have a candidate
// that is measurably slower than its reference (tests/cli/ab_test.py). No real allocator has it.
#include <sys/mman.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
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
  static Cache* c = new Cache;  // never destroyed: callers may free during exit
  return *c;
}

size_t rounded(ssize_t size) {
  size_t s = size <= 0 ? 1 : static_cast<size_t>(size);
  return (s + kGranule - 1) / kGranule * kGranule;
}

// The test-only delay (above); 0 without the variable, at most 1 s (the tests that need a cell
// still running wait 200 ms an allocation), read as strictly as the planted slowdown
// (example_slowdown.hpp).
const std::chrono::microseconds kTestDelay{
    memrel_example::whole_number_setting("MEMREL_TEST_HOST_EXAMPLE_DELAY_US", 1000000,
                                         "microseconds", "the host example's test-only delay")};

void test_delay() {
  if (kTestDelay.count() <= 0) return;
  const auto until = std::chrono::steady_clock::now() + kTestDelay;
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

EXAMPLE_EXPORT void* memrel_host_example_alloc(ssize_t size, int /*device*/, void* /*stream*/) {
  memrel_example::spin_planted_slowdown();
  test_delay();
  Cache& c = cache();
  size_t bytes = rounded(size);
  std::lock_guard<std::mutex> lock(c.mutex);
  void* p = nullptr;
  auto it = c.free_lists.find(bytes);
  if (it != c.free_lists.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
  } else {
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;  // the caller reports out of memory
    c.reserved += bytes;
  }
  c.live[p] = bytes;
  c.allocated += bytes;
  return p;
}

EXAMPLE_EXPORT void memrel_host_example_free(void* ptr, ssize_t /*size*/, int /*device*/,
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

EXAMPLE_EXPORT void memrel_host_example_release(int /*device*/) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto& [bytes, blocks] : c.free_lists) {
    for (void* p : blocks) {
      munmap(p, bytes);
      c.reserved -= bytes;
    }
  }
  c.free_lists.clear();
}

EXAMPLE_EXPORT size_t memrel_host_example_allocated(int /*device*/) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.allocated;
}

EXAMPLE_EXPORT size_t memrel_host_example_reserved(int /*device*/) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.reserved;
}
