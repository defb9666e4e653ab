// What a torch program needs from the allocator layer its tensors come from. Two layers can be
// that: PyTorch's own caching allocator (the torch-* backends: torch holds the cache), or
// PyTorch's pluggable-allocator bridge over another memrel backend (cuda-malloc, the pools, RMM,
// a backend file's library: torch holds nothing, the backend beneath holds whatever it caches).
// The programs are written once against this interface and run on either.
#pragma once

#include <string>

#include "allocators/framework_program.hpp"

namespace memrel {

class ProgramAllocator {
 public:
  virtual ~ProgramAllocator() = default;

  // torch.cuda.empty_cache(): what it does depends on the layer (emptyCache of the caching
  // allocator, or the pluggable allocator's reset function, which memrel binds to the backend's
  // release()).
  virtual void empty_cache() = 0;
  // Waits for the device, so that a probe taken afterwards sees every free.
  virtual void wait_for_device() = 0;
  // High-water marks of allocated and reserved since reset_peaks(), in the layer's own
  // accounting; empty where the layer keeps no such figure.
  virtual void reset_peaks() = 0;
  virtual Usage peaks() const = 0;
};

}  // namespace memrel
