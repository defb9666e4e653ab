// One (backend, workload) cell, run inside its own process: create the context, make the
// allocator, execute the steps, probe at every mark, derive the metrics.
#pragma once

#include <cstdint>

#include "allocators/backend_table.hpp"
#include "harness/results/results.hpp"
#include "harness/workload/workload.hpp"

namespace memrel {

struct CellOptions {
  // What device_fraction is taken of for host backends: a CI machine has no device to size by.
  std::uint64_t host_capacity_bytes = std::uint64_t{1} << 30;
  // Traces: every size divided by this (rounding up); 0 is auto (harness/workload/trace_plan.hpp:
  // host backends scale a trace down to fit host_capacity_bytes, device backends replay it as is).
  std::uint64_t trace_scale_divisor = 0;
  // The slot's previous cell, still exiting: waited for after the CUDA context is created and
  // before the first reading of the device's memory, which its exit would still be changing
  // (CellTiming::previous_exit_wait_ns). 0: none.
  int after_pid = 0;
};

// Never throws for the backend's sake: an unavailable backend, an out-of-memory step or an
// allocator error all come back as the cell's status and reason.
CellResult run_cell(const BackendInfo& backend, const Workload& workload,
                    const CellOptions& options);

}  // namespace memrel
