// How the runner and a cell process talk, both ends in one place: the command line the runner
// execs (`memrel [--backends-dir DIR] cell --backend B --workload W --result-fd 3 ...`), what the
// cell process does with it, and how it hands its result back. cli/cell_command.cpp only maps
// these options onto the command line parser.
//
// Why a process per cell: a forked CUDA process is unusable, each cell gets a clean context, and
// allocator settings read once at library load (PyTorch's) can differ between cells.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace memrel {

// The cell subcommand's name and options.
namespace cell_protocol {
inline constexpr const char* kSubcommand = "cell";
inline constexpr const char* kBackendsDir = "--backends-dir";  // memrel's, before the subcommand
inline constexpr const char* kBackend = "--backend";
inline constexpr const char* kWorkload = "--workload";
inline constexpr const char* kOut = "--out";
inline constexpr const char* kResultFd = "--result-fd";
inline constexpr const char* kHostCapacity = "--host-capacity";
inline constexpr const char* kTraceScale = "--trace-scale";
inline constexpr const char* kCheck = "--check";
// The cell before this one in its slot, still exiting (its result is in): this cell creates its
// CUDA context meanwhile, then waits for that process to end before its first reading of the
// device's memory (RunOptions::exit_overlap). Always given to a cell the runner starts, ten
// decimal digits, 0000000000 for none: a host cell's figures are its own heap's, which holds its
// command line, so the line must have one length whether or not a cell came before.
inline constexpr const char* kAfterPid = "--after-pid";
// Serve as the zygote of the backend's cells (platform/zygote.hpp) on descriptor 3.
inline constexpr const char* kZygote = "--zygote";
// With --zygote: also load what this framework program needs (a zygote of the cells that run it
// over a backend of another family: BackendFamily::preload_program).
inline constexpr const char* kPreloadProgram = "--preload-program";
// A key the cell adds to its result: when it began, on the monotonic clock the runner starts it
// by (steady_clock: CLOCK_MONOTONIC, one for the whole machine). The runner takes it out and
// keeps the difference: the cell's spawn time (CellTiming::spawn_ns).
inline constexpr const char* kEnteredKey = "cell_entered_monotonic_ns";
// kAfterPid's value: `pid` as ten digits, and back (std::invalid_argument naming the option).
std::string after_pid_text(int pid);
int parse_after_pid(const std::string& text);
// The runner hands the cell an anonymous file as this descriptor for its result.
inline constexpr int kResultDescriptor = 3;
}  // namespace cell_protocol

struct CellRequest {
  std::string backend;  // a compiled backend's name, a backend file's name or its path
  std::string backends_dir;
  std::string workload;  // the workload or trace file
  std::string host_capacity = "1GiB";
  std::string trace_scale = "auto";
  std::string out;     // where the result goes: a file (by hand), or
  int result_fd = -1;  // a descriptor the runner opened (its way)
  int after_pid = 0;   // the slot's previous cell, still exiting (kAfterPid); 0: none
  // Only load the backend's library and resolve its symbols (backend files); run nothing.
  bool check = false;
  // Serve as the zygote of the backend's cells instead of running one (--zygote).
  bool zygote = false;
  // With zygote: the framework program whose libraries it loads too (empty: none).
  std::string preload_program;
};

// The runner's end: the whole command line, `executable` first.
std::vector<std::string> cell_command_line(const std::string& executable,
                                           const CellRequest& request);

// The cell's end, in the process the runner started: whatever it starts ends with it, the
// backend is resolved again here (the parent loads no backend's library), and the result is
// written whole. Returns the process's exit code: 0, or kCellResultNotWritten (cell_exit.hpp)
// when the result could not be handed over. Throws std::invalid_argument for an unusable
// request (one line).
int serve_cell(const CellRequest& request);

// The zygote's end (`memrel cell --backend B --zygote`): loads what the backend's cells load
// (the GPU driver's library for a device backend, and what its family declares:
// BackendInfo::preload), creating no CUDA context, then forks a cell per request of the runner on
// descriptor 3; each child runs `run_command_line` with the cell's command line, as an exec'd
// `memrel cell` would. It refuses (and the runner execs that backend's cells) when forking would
// not be safe (platform/zygote.hpp, fork_hazard). Returns its exit code.
int serve_cell_zygote(const CellRequest& request,
                      const std::function<int(const std::vector<std::string>&)>& run_command_line);

}  // namespace memrel
