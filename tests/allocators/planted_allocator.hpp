// TEST ONLY: a small caching host allocator with one planted fault, to show that each
// conformance check fails on an allocator that breaks its contract (a check that cannot fail
// proves nothing). Without a fault it keeps every contract, which is the control.
//
// It caches like the allocators memrel measures: a freed block goes to a free list of its size
// and serves the next request of that size; release() frees the cached blocks. allocated = bytes
// of live blocks, reserved = live + cached, counted here (UsageAccounting::kOwn). Every fault
// stays memory-safe, so that a test run (AddressSanitizer's too) sees a finding, not a crash.
#pragma once

#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel::testing {

enum class Fault {
  kNone,
  kNullForOneByte,                  // allocate(1) returns null
  kEveryBlockAtTheSameAddress,      // blocks alias one buffer, yet blocks_are_real() is true
  kAllocatedNeverFalls,             // deallocate forgets to count the block out
  kAllocatedRisesByHalfTheRequest,  // usage under-counts
  kReservedBelowAllocated,          // reserved reports half of allocated
  kZeroBytesThrowsInvalidArgument,  // allocate(0) throws something other than OutOfMemory
  kHugeRequestThrowsBadAlloc,       // allocate(1 PiB) throws std::bad_alloc
  kOutOfMemoryCarriesNoSize,        // OutOfMemory(0, ...) for the 1 PiB request
  kHugeRequestSucceeds,             // allocate(1 PiB) returns a block that is not there
  kReleaseFreesOneBlockPerCall,     // each release() frees one cached block: not idempotent
  kReleaseCountsCachedAsAllocated,  // after release, allocated keeps the bytes it just freed
  kSynchronizeThrowsWhenIdle,       // synchronize() with nothing live throws std::logic_error
};

class PlantedAllocator : public Allocator {
 public:
  explicit PlantedAllocator(Fault fault) : fault_(fault) {}
  ~PlantedAllocator() override {
    for (const auto& [p, bytes] : live_) release_memory(p);
    for (auto& [bytes, blocks] : cache_) {
      for (void* p : blocks) release_memory(p);
    }
  }

  void* allocate(std::size_t bytes) override {
    if (bytes == 0 && fault_ == Fault::kZeroBytesThrowsInvalidArgument)
      throw std::invalid_argument("zero bytes");
    if (bytes == 1 && fault_ == Fault::kNullForOneByte) return nullptr;
    if (bytes > kLargestBlock) {
      if (fault_ == Fault::kHugeRequestThrowsBadAlloc) throw std::bad_alloc();
      if (fault_ == Fault::kOutOfMemoryCarriesNoSize) throw OutOfMemory(0, "planted");
      if (fault_ != Fault::kHugeRequestSucceeds) throw OutOfMemory(bytes, "larger than 64 MiB");
    }
    void* p = nullptr;
    auto cached = cache_.find(bytes);
    if (cached != cache_.end() && !cached->second.empty()) {
      p = cached->second.back();
      cached->second.pop_back();
      cached_bytes_ -= bytes;
    } else if (fault_ == Fault::kEveryBlockAtTheSameAddress || bytes > kLargestBlock) {
      p = shared_buffer();
    } else {
      p = std::malloc(bytes == 0 ? 1 : bytes);
      if (p == nullptr) throw OutOfMemory(bytes, "malloc returned NULL");
    }
    live_[p] += bytes;  // += : aliasing blocks share one entry
    allocated_ += fault_ == Fault::kAllocatedRisesByHalfTheRequest ? bytes / 2 : bytes;
    return p;
  }

  void deallocate(void* p, std::size_t bytes) override {
    auto it = live_.find(p);
    if (it == live_.end()) return;
    it->second -= bytes;
    if (it->second == 0) live_.erase(it);
    if (fault_ != Fault::kAllocatedNeverFalls) {
      allocated_ -= fault_ == Fault::kAllocatedRisesByHalfTheRequest ? bytes / 2 : bytes;
    }
    if (p == shared_buffer_.data()) return;  // not a block of its own: nothing to cache
    cache_[bytes].push_back(p);
    cached_bytes_ += bytes;
  }

  void release() override {
    std::uint64_t freed = 0;
    for (auto& [bytes, blocks] : cache_) {
      while (!blocks.empty()) {
        release_memory(blocks.back());
        blocks.pop_back();
        freed += bytes;
        if (fault_ == Fault::kReleaseFreesOneBlockPerCall) break;
      }
      if (fault_ == Fault::kReleaseFreesOneBlockPerCall && freed > 0) break;
    }
    cached_bytes_ -= freed;
    if (fault_ == Fault::kReleaseCountsCachedAsAllocated) allocated_ += freed;
  }

  void synchronize() override {
    if (fault_ == Fault::kSynchronizeThrowsWhenIdle && live_.empty())
      throw std::logic_error("nothing to synchronize");
  }

  void fill(void* p, std::size_t bytes) override {
    if (bytes <= kLargestBlock) std::memset(p, 0x5a, bytes);  // a 1 PiB "block" is not there
  }

  Usage usage() const override {
    std::uint64_t reserved = allocated_ + cached_bytes_;
    if (fault_ == Fault::kReservedBelowAllocated) reserved = allocated_ / 2;
    return {allocated_, reserved};
  }
  MemorySpace space() const override { return MemorySpace::kHost; }

 private:
  static constexpr std::size_t kLargestBlock = std::size_t{64} << 20;

  void* shared_buffer() {
    if (shared_buffer_.empty()) shared_buffer_.resize(kLargestBlock);
    return shared_buffer_.data();
  }
  void release_memory(void* p) {
    if (p != shared_buffer_.data()) std::free(p);
  }

  Fault fault_;
  std::vector<char> shared_buffer_;
  std::map<void*, std::size_t> live_;  // block -> bytes live at it
  std::map<std::size_t, std::vector<void*>> cache_;
  std::uint64_t allocated_ = 0;
  std::uint64_t cached_bytes_ = 0;
};

}  // namespace memrel::testing
