// What the driver sees of device 0, as opposed to what an allocator says about itself.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace memrel {

struct DeviceDescription {
  std::string name;
  std::string pci_bus_id;
  std::uint64_t total_bytes = 0;
  int compute_capability_major = 0, compute_capability_minor = 0;
  int cuda_runtime_version = 0, cuda_driver_version = 0;
};

// Loads the GPU driver's library (what the CUDA runtime loads at its first call) without calling
// into it: no context, no device opened. For a zygote, whose children then find it loaded (each
// still creates its own context). Never throws; nothing to do without CUDA.
void preload_device_driver();

// The driver's view of device 0, from inside a cell. Creating one creates the CUDA context.
class DeviceProbe {
 public:
  // Throws Unavailable when there is no usable device or memrel was built without CUDA.
  static std::unique_ptr<DeviceProbe> create();
  virtual ~DeviceProbe() = default;
  // total - free from cudaMemGetInfo: every process's use of the device, this one's included.
  virtual std::uint64_t used_bytes() const = 0;
  // What NVML (nvidia-smi) charges this process; empty, with the reason, when it cannot say.
  virtual std::optional<std::uint64_t> process_bytes(std::string* why) const = 0;
  virtual const DeviceDescription& description() const = 0;
};

}  // namespace memrel
