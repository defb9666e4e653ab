#include "allocators/availability.hpp"

#include "platform/nvml.hpp"

namespace memrel {

const char* memory_space_name(MemorySpace space) {
  return space == MemorySpace::kDevice ? "device" : "host";
}

Availability device_backend_availability() {
#ifndef MEMREL_HAVE_CUDA
  return {false, "memrel was built without the CUDA toolkit"};
#else
  nvml::Loaded loaded = nvml::query_system();
  if (!loaded.system) return {false, "no CUDA device: " + loaded.error};
  if (loaded.system->gpus.empty()) return {false, "no CUDA device: NVML lists no GPU"};
  return {true, ""};
#endif
}

Availability host_backend_availability() { return {true, ""}; }

bool machine_runs_space(MemorySpace space) {
  return space == MemorySpace::kHost || device_backend_availability().available;
}

}  // namespace memrel
