// The one interface every memrel backend implements.
//
// A backend wraps one allocator (cudaMalloc, a CUDA memory pool, PyTorch's caching allocator,
// glibc malloc). The harness never looks inside: it asks for bytes, gives them back, asks the
// backend to hand cached memory back to the driver or OS (`release`), and reads the allocator's
// own view of its usage where the allocator has one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "platform/unavailable.hpp"

namespace memrel {

// Where a backend's memory lives decides which probe tells the truth about it: the CUDA driver
// (cudaMemGetInfo, NVML) for device memory, the kernel (resident set size) for host memory.
enum class MemorySpace { kDevice, kHost };

// The allocator's own accounting. Empty when the allocator keeps no such figure.
struct Usage {
  std::optional<std::uint64_t> allocated;  // bytes handed out to callers and not yet freed
  std::optional<std::uint64_t> reserved;   // bytes the allocator holds from the driver/OS
};

// Thrown by allocate() when the allocator cannot satisfy a request. Carries the size so a
// results file can say which request failed.
class OutOfMemory : public std::runtime_error {
 public:
  OutOfMemory(std::size_t bytes, const std::string& detail)
      : std::runtime_error("out of memory allocating " + std::to_string(bytes) +
                           " bytes: " + detail),
        bytes_(bytes) {}
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

// Thrown when a backend cannot run on this machine (no CUDA device, no libtorch). The runner
// records the cell as unavailable with this message rather than as a failure.
class BackendUnavailable : public Unavailable {
 public:
  using Unavailable::Unavailable;
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  // Returns memory of at least `bytes`; throws OutOfMemory.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* p, std::size_t bytes) = 0;

  // Give cached memory back to the driver or OS: emptyCache, pool trim, malloc_trim.
  // A no-op for allocators that cache nothing.
  virtual void release() = 0;

  // Waits until frees issued so far are visible to the driver, so a probe taken afterwards
  // sees them. Stream-ordered allocators free at stream synchronisation, not at the call.
  virtual void synchronize() {}

  // Writes every byte of a block, as the seeds' randn() does, so that the memory is really
  // backed (host pages are only resident once touched). Not part of any timed interval.
  virtual void fill(void* p, std::size_t bytes) = 0;

  virtual Usage usage() const = 0;
  virtual MemorySpace space() const = 0;

  // False only where every block aliases one small buffer (null): whoever would write a whole
  // block to make it resident (a trace replay touches each host page) must not.
  virtual bool blocks_are_real() const { return true; }
};

}  // namespace memrel
