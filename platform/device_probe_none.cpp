// DeviceProbe for builds without the CUDA toolkit: every device backend reports why it cannot run.
#include "platform/device_probe.hpp"
#include "platform/unavailable.hpp"

namespace memrel {

void preload_device_driver() {}

std::unique_ptr<DeviceProbe> DeviceProbe::create() {
  throw Unavailable(
      "memrel was built without the CUDA toolkit (CUDAToolkit not found at configure time)");
}

}  // namespace memrel
