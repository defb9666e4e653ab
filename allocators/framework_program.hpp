// Framework programs: real work of a framework (a model's forward pass under no_grad, the seeds'
// scripts) run inside a cell, named by a workload step {"program": NAME, "args": {...}}.
//
// A program belongs to the backend family whose framework it is written for
// (BackendFamily::programs). The cell hands it the cell's backend and allocator and a context to
// report probes through; the family decides how the framework's tensors reach that allocator.
#pragma once

#include <cstdint>
#include <string>

#include "allocators/allocator.hpp"

namespace memrel {

// What a program reports back to the cell: a probe at a named moment, with the bytes the program
// itself holds live.
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

// Which allocator layer a program's memory came from, recorded with the cell (docs/torch.md).
struct ProgramPlacement {
  std::string framework;    // the family whose program ran, e.g. "torch"
  std::string allocator;    // the framework's allocator that served it, e.g. "native", "pluggable"
  std::string cache_layer;  // who holds freed blocks for reuse: the framework's name or "backend"
};

}  // namespace memrel
