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

// What a program step (real framework work, e.g. a model's forward pass under no_grad) reports
// back to the cell: a probe at a named moment, with the bytes the program itself holds live.
class ProgramContext {
 public:
  virtual ~ProgramContext() = default;
  virtual void mark(const std::string& label, std::uint64_t requested_bytes) = 0;
  // A probe whose allocated and reserved are `peaks` (the allocator's high-water marks, which
  // only the program's allocator layer knows) rather than the backend's current figures; the
  // driver and NVML figures in it are current ones (neither keeps a peak).
  virtual void mark_peaks(const std::string& label, std::uint64_t peak_requested_bytes,
                          const Usage& peaks) = 0;
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

  // Runs a named program of real framework work (workload step {"program": NAME, "args": {...}}).
  // Only framework backends have programs; the others cannot run such a workload, which the cell
  // records as unavailable, not as a failure.
  virtual void run_program(const std::string& name, const std::string& args_json,
                           ProgramContext& context) {
    (void)args_json;
    (void)context;
    throw BackendUnavailable("this backend runs no framework programs (workload needs program '" +
                             name + "': use a torch-* backend or a device backend)");
  }
};

}  // namespace memrel
