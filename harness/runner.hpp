// Runs every (backend, workload) cell in a fresh child process.
//
// fork + exec, never fork alone: a forked CUDA process is unusable, and a fresh process gives
// each cell a clean context and lets allocator settings that are read once at library load
// (PyTorch's) differ between cells. The parent creates no CUDA context at all.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "harness/cell.hpp"
#include "harness/results.hpp"

namespace memrel {

struct RunOptions {
  std::string memrel_executable;  // the binary that provides `memrel cell`
  std::vector<std::string> backends;
  std::vector<std::string> workload_paths;  // already validated
  std::uint64_t cell_timeout_s = 300;
  CellOptions cell;
  std::string module_loading;  // CUDA_MODULE_LOADING for every cell; empty leaves it unset
};

// One cell in a child process; a crash, a timeout or a missing result becomes the cell's status.
CellResult run_cell_process(const RunOptions& options, const std::string& backend,
                            const std::string& workload_path, const std::string& workload_name);

// All cells, in backend-major order, with a progress line per cell on `progress`.
RunResults run_suite(const RunOptions& options, std::ostream& progress);

}  // namespace memrel
