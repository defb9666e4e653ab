// NVML, loaded at run time.
//
// NVML is what nvidia-smi reads, so it is the only source for "what the driver charges this
// process". It ships with the driver, not the toolkit, and CPU-only machines have neither
// libnvidia-ml.so.1 nor nvml.h; loading it with dlopen lets one memrel binary run everywhere and
// lets the parent process look for a GPU without creating a CUDA context.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memrel::nvml {

struct GpuSummary {
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  std::uint64_t total_bytes = 0;
};

struct SystemSummary {
  std::string driver_version;
  int cuda_driver_version = 0;  // e.g. 13000
  std::vector<GpuSummary> gpus;
};

// Empty with `error` set when NVML cannot be loaded or initialised.
struct Loaded {
  std::optional<SystemSummary> system;
  std::string error;
};

Loaded query_system();

// Bytes NVML charges process `pid` on the GPU with this PCI bus id; empty with `error` set when
// NVML is missing or lists no such process (e.g. a PID namespace hides it).
std::optional<std::uint64_t> process_used_bytes(const std::string& pci_bus_id, unsigned pid,
                                                std::string* error);

}  // namespace memrel::nvml
