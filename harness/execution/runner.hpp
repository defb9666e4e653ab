// Runs every (backend, workload) cell in a fresh child process.
//
// fork + exec, never fork alone: a forked CUDA process is unusable, and a fresh process gives
// each cell a clean context and lets allocator settings that are read once at library load
// (PyTorch's) differ between cells. The parent creates no CUDA context at all.
//
// Cells run one at a time, or with --gpus one per GPU at a time, each child seeing only its GPU:
// the device-wide probes stay true because no two cells share a device. Every cell is journaled
// as it finishes (harness/execution/run_journal.hpp). SIGINT or SIGTERM ends the running cells and
// their process groups and throws Interrupted; no cell outlives the runner
// (platform/child_process). All children are forked by the calling thread: the parent-death signal
// follows the thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "harness/execution/cell.hpp"
#include "harness/execution/shard.hpp"
#include "harness/results/results.hpp"
#include "platform/gpu_selection.hpp"

namespace memrel {

// A workload of the run, read once: the file its cells run, the file to name in the results (the
// snapshot or RMM log a temporary trace was imported from; else the same file) and its name.
struct RunWorkload {
  std::string path, original, name;
};

struct RunOptions {
  std::string memrel_executable;  // the binary that provides `memrel cell`
  // Table names, names of backend files in backends_dir, or backend file paths: each cell is
  // given the same string, and the backends folder, to resolve it again.
  std::vector<std::string> backends;
  std::string backends_dir;
  std::vector<RunWorkload> workloads;  // already validated, each read once
  std::uint64_t cell_timeout_s = 300;
  CellOptions cell;
  std::string module_loading;  // CUDA_MODULE_LOADING for every cell; empty leaves it unset
  // One shard's cells only (`memrel run --shard K/N`, harness/execution/shard.hpp); unset: all.
  std::optional<Shard> shard;

  // Empty: one cell at a time, CUDA_VISIBLE_DEVICES left as it is. Else one cell per GPU.
  std::vector<GpuSlot> gpus;
  // Where finished cells are journaled (empty: nowhere), and whether to continue that journal.
  std::string journal_path;
  bool resume = false;
  // A progress line for every cell that ran (`memrel run -v`, or stderr a terminal), not only
  // the ones worth reading.
  bool progress_every_cell = false;
};

// Loads a pluggable backend's library and resolves its symbols in a child process (`memrel
// cell --check`), since the parent must not load it. Empty when it loads, else the child's
// one-line error ("FILE: library: cannot load ...", "FILE: symbol ... not found in ...").
std::string check_backend_process(const RunOptions& options, const std::string& backend);

// All cells (or the shard's), in backend-major order; on `progress`, a line per backend and per
// cell worth reading (harness/execution/run_summary.hpp), as they end. Throws ResultsError for a
// journal that is there without --resume, missing or of another run with it; Interrupted
// (platform/interrupt.hpp) after a signal, once the running cells are ended.
RunResults run_suite(const RunOptions& options, std::ostream& progress);

}  // namespace memrel
