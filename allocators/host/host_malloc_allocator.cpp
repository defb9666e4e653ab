#include "allocators/host/host_malloc_allocator.hpp"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "platform/address_sanitizer.hpp"

namespace memrel {
namespace {

// Under AddressSanitizer malloc is the sanitizer's, not glibc's, and its mallopt is a stub that
// returns 0 for every call: there a refusal says nothing about the value. (The sanitized build
// tests memrel's own code; glibc's behaviour is measured by the plain build.)
constexpr bool kGlibcMallocInUse = !kUnderAddressSanitizer;

}  // namespace

HostMallocAllocator::HostMallocAllocator(const MalloptSettings& settings) {
  for (const auto& [param, value] : settings) {
    // mallopt returns 0 when glibc refuses a value.
    if (mallopt(param, value) == 0 && kGlibcMallocInUse)
      throw std::runtime_error("glibc refused mallopt(" + std::to_string(param) + ", " +
                               std::to_string(value) + ")");
  }
}

void* HostMallocAllocator::allocate(std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (p == nullptr) throw OutOfMemory(bytes, "malloc returned NULL");
  return p;
}

void HostMallocAllocator::deallocate(void* p, std::size_t) { std::free(p); }

void HostMallocAllocator::release() { malloc_trim(0); }

void HostMallocAllocator::fill(void* p, std::size_t bytes) { std::memset(p, 0x5a, bytes); }

Usage HostMallocAllocator::usage() const {
  struct mallinfo2 info = mallinfo2();
  return {static_cast<std::uint64_t>(info.uordblks + info.hblkhd),
          static_cast<std::uint64_t>(info.arena + info.hblkhd)};
}

}  // namespace memrel
