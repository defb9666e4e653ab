// The list of backends memrel knows, whether each can run here, and how to make one.
//
// Adding a backend is one file in allocators/ and one line in registry.cpp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel {

struct Availability {
  bool available = false;
  std::string reason;  // why not, when unavailable
};

struct BackendInfo {
  std::string name;
  std::string description;
  MemorySpace space;
  // Environment the cell process must start with, because the allocator reads it once when its
  // library loads (PyTorch's allocator settings). The runner sets these before exec.
  std::map<std::string, std::string> cell_environment;
  // Checked in the parent process, which must not create a CUDA context: looks for a driver and
  // a device through NVML, never through the CUDA runtime.
  std::function<Availability()> availability;
  // Called inside the cell process only.
  std::function<std::unique_ptr<Allocator>()> make;
};

const std::vector<BackendInfo>& all_backends();

// Throws std::invalid_argument naming the valid backends when `name` is unknown.
const BackendInfo& find_backend(const std::string& name);

std::string backend_names_joined();

// Shared availability checks.
Availability device_backend_availability();
Availability host_backend_availability();

}  // namespace memrel
