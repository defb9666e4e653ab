// DeviceProbe for builds without the CUDA toolkit: every device backend reports why it cannot run.
#include "allocators/allocator.hpp"
#include "harness/probe.hpp"

namespace memrel {

std::unique_ptr<DeviceProbe> DeviceProbe::create() {
  throw BackendUnavailable(
      "memrel was built without the CUDA toolkit (CUDAToolkit not found at configure time)");
}

}  // namespace memrel
