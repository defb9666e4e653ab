// Runs every (backend, workload) cell in a fresh child process.
//
// Never a fork of a process with a CUDA context (a forked CUDA process is unusable): a fresh
// process gives each cell a clean context and lets allocator settings that are read once at
// library load (PyTorch's) differ between cells. The parent creates no CUDA context at all.
// A cell starts warm: forked from its backend's zygote (`memrel cell --zygote`, started by fork +
// exec with the backend's environment), which has loaded the backend's libraries but created no
// context (platform/zygote.hpp); host cells (unless --zygote all), every cell with --zygote none,
// and where a zygote refuses, by fork + exec of `memrel cell`. Either way the cell protocol
// (cell_protocol.hpp) is the interface, and the results say how each cell started
// (CellTiming::started_by).
//
// Cells run one at a time (and a host cell beside it: RunOptions::host_lane), or with --gpus one
// per GPU at a time, each child seeing only its GPU: the device-wide probes stay true because no
// two cells share a device. Every cell is journaled
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
#include "harness/execution/run_journal.hpp"
#include "harness/execution/shard.hpp"
#include "harness/results/results.hpp"
#include "platform/durable_append.hpp"
#include "platform/file_version.hpp"
#include "platform/gpu_selection.hpp"

namespace memrel {

// A workload of the run, read once: the file its cells run, the file to name in the results (the
// snapshot or RMM log a temporary trace was imported from; else the same file) and its name.
struct RunWorkload {
  std::string path, original, name;
  // The framework programs its steps run ({"program": NAME}): a zygote serving its cells over a
  // backend of another family loads what they need (BackendFamily::preload_program).
  std::vector<std::string> programs;
  // `original` as it was before its first read: the run stops if the file is not that one any
  // more after a cell (each cell reads it again). Empty: taken when the run starts.
  std::optional<FileVersion> version;
};

enum class ZygoteUse { kNone, kDevice, kAll };

// "none", "device", "all"; throws std::invalid_argument naming `option` otherwise.
ZygoteUse parse_zygote_use(const std::string& text, const std::string& option);

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
  // Which cells are forked from their backend's zygote (`memrel run --zygote`); the others are
  // fork + exec. kDevice by default: a host cell's figures are its own process's heap, and a
  // zygote's history changes its layout (measured: host-malloc x trace-rmm-log-convnet-on-rmm-pool
  // max_overhead_bytes 5.1 MiB lower, every run), while a device cell's are the driver's and its
  // allocator's. None with module_loading EAGER, where a library preloaded before the context
  // would have its kernels loaded with the context, moving them from backend init to the context.
  ZygoteUse zygote = ZygoteUse::kDevice;
  // Without --gpus, host cells run beside the device cells, one at a time in a lane of their own
  // (`memrel run --no-host-lane` turns it off): they touch no device, and a host cell's figures
  // are its own process's heap, which another process's work does not change. Off, every cell
  // waits its turn. With --gpus every cell has its GPU's slot, as before.
  bool host_lane = true;
  // A cell's exit (for a device cell, the driver tearing its CUDA context down: 0.1 to 0.27 s on
  // the H200) overlaps the next cell's start in its slot: once a cell's result is in, the next
  // one starts and creates its context, then waits for the previous process to end before its
  // first reading of the device's memory (CellOptions::after_pid), so the bytes stay those of
  // cells that follow one another. `memrel run --no-exit-overlap` turns it off: each cell then
  // starts once the one before is reaped.
  bool exit_overlap = true;
};

// Loads a pluggable backend's library and resolves its symbols in a child process (`memrel
// cell --check`), since the parent must not load it. Empty when it loads, else the child's
// one-line error ("FILE: library: cannot load ...", "FILE: symbol ... not found in ...").
// Bounded by options.cell_timeout_s; on `waiting`, when given, a line once the library has
// taken a few seconds to load. `environment`: settings the backend's processes get besides the
// backend's own (ab's --candidate-env).
std::string check_backend_process(const RunOptions& options, const std::string& backend,
                                  std::ostream* waiting = nullptr,
                                  const std::map<std::string, std::string>& environment = {});

// All cells (or the shard's), in backend-major order; on `progress`, a line per backend and per
// cell worth reading (harness/execution/run_summary.hpp), as they end. Throws ResultsError for a
// journal that is there without --resume, missing or of another run with it; Interrupted
// (platform/interrupt.hpp) after a signal, once the running cells are ended.
// `journal`, when given: the journal itself, still held, for the caller to remove once the
// results are written (remove_if_same_file with its identity(): a journal another run made under
// the same name after this one's was removed by hand is that run's) and only then let go. Let go
// here, it stood complete and unheld while the results were written, and a second run into the
// same output then called it "the journal of an interrupted run" (the forty-sixth adversarial
// pass, c9-advise-live-journal-message).
RunResults run_suite(const RunOptions& options, std::ostream& progress,
                     std::optional<RunJournal>* journal = nullptr);

}  // namespace memrel
