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
  // Table names, names of backend files in backends_dir, or backend file paths: each cell is
  // given the same string, and the backends folder, to resolve it again.
  std::vector<std::string> backends;
  std::string backends_dir;
  std::vector<std::string> workload_paths;  // already validated
  std::uint64_t cell_timeout_s = 300;
  CellOptions cell;
  std::string module_loading;  // CUDA_MODULE_LOADING for every cell; empty leaves it unset
};

// One cell in a child process; a crash, a timeout or a missing result becomes the cell's status.
CellResult run_cell_process(const RunOptions& options, const std::string& backend,
                            const std::string& workload_path, const std::string& workload_name);

// Loads a pluggable backend's library and resolves its symbols in a child process (`memrel
// cell --check`), since the parent must not load it. Empty when it loads, else the child's
// one-line error ("FILE: library: cannot load ...", "FILE: symbol ... not found in ...").
std::string check_backend_process(const RunOptions& options, const std::string& backend);

// All cells, in backend-major order; on `progress`, a line per backend and per cell worth reading
// (harness/run_summary.hpp).
RunResults run_suite(const RunOptions& options, std::ostream& progress);

}  // namespace memrel
