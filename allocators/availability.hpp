// Whether a backend can run on this machine, decided in the parent process, which must not
// create a CUDA context: a driver and a device are looked for through NVML, never through the
// CUDA runtime.
#pragma once

#include "allocators/backend_family.hpp"

namespace memrel {

// A CUDA device is there and this build has the toolkit.
Availability device_backend_availability();
Availability host_backend_availability();

// Host memory always; device memory where device_backend_availability() says so.
bool machine_runs_space(MemorySpace space);

}  // namespace memrel
