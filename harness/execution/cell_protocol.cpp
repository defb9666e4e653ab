#include "harness/execution/cell_protocol.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <thread>

#include "allocators/backend_families.hpp"
#include "allocators/backend_table.hpp"
#include "harness/execution/cell.hpp"
#include "harness/execution/cell_exit.hpp"
#include "harness/workload/trace_plan.hpp"
#include "harness/workload/workload.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"
#include "platform/child_process.hpp"
#include "platform/device_probe.hpp"
#include "platform/zygote.hpp"

namespace memrel {
namespace {

// The runner's way: an anonymous file it opened, read back once this process has exited.
void write_to_fd(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error(std::string(cell_protocol::kResultFd) + " " + std::to_string(fd) +
                               ": write failed (" + std::strerror(errno) + ")");
    done += static_cast<std::size_t>(n);
  }
}

// memrel's exit code for a failure of the machine's state (cli/exit_codes.hpp's kInternalError,
// which harness/ does not include).
constexpr int kMachineStateExitCode = 4;

// MEMREL_INJECT_FAULT=slow-exit:MS (the list: harness/execution/cell.cpp): the runner's tests'
// stand-in for a device cell's exit, which the driver's teardown of its context makes slow.
void exit_slowly_if_asked(const CellResult& cell) {
  const char* fault = std::getenv("MEMREL_INJECT_FAULT");
  if (fault == nullptr || std::strncmp(fault, "slow-exit:", 10) != 0) return;
  const char* only = std::getenv("MEMREL_INJECT_FAULT_CELL");
  if (only != nullptr && std::string(only) != cell.backend + "/" + cell.workload) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(fault + 10)));
}

}  // namespace

namespace cell_protocol {
std::string after_pid_text(int pid) {
  char text[16];
  std::snprintf(text, sizeof text, "%010d", pid > 0 ? pid : 0);
  return text;
}

int parse_after_pid(const std::string& text) {
  bool digits = !text.empty() && text.size() <= 10 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  long long pid = digits ? std::stoll(text) : -1;
  if (pid < 0 || pid > std::numeric_limits<pid_t>::max())
    throw std::invalid_argument(std::string(kAfterPid) + " " + text +
                                ": not a process id (ten digits at most)");
  return static_cast<int>(pid);
}
}  // namespace cell_protocol

std::vector<std::string> cell_command_line(const std::string& executable, const CellRequest& r) {
  namespace p = cell_protocol;
  std::vector<std::string> args = {executable};
  if (!r.backends_dir.empty()) args.insert(args.end(), {p::kBackendsDir, r.backends_dir});
  args.insert(args.end(), {p::kSubcommand, p::kBackend, r.backend});
  if (r.check || r.zygote) {
    args.push_back(r.check ? p::kCheck : p::kZygote);
    if (r.zygote && !r.preload_program.empty())
      args.insert(args.end(), {p::kPreloadProgram, r.preload_program});
    return args;
  }
  args.insert(args.end(), {p::kWorkload, r.workload});
  if (r.result_fd >= 0)
    args.insert(args.end(), {p::kResultFd, std::to_string(r.result_fd)});
  else
    args.insert(args.end(), {p::kOut, r.out});
  args.insert(args.end(), {p::kHostCapacity, r.host_capacity, p::kTraceScale, r.trace_scale});
  if (r.result_fd >= 0) args.insert(args.end(), {p::kAfterPid, p::after_pid_text(r.after_pid)});
  return args;
}

int serve_cell(const CellRequest& r) {
  const auto entered = std::chrono::steady_clock::now();
  // Started by the runner (a group of its own): whatever this cell starts ends with it, also
  // when the runner dies (the parent-death signal is SIGTERM).
  end_own_group_on_sigterm();
  BackendInfo backend = resolve_backend(r.backend, r.backends_dir);
  if (r.check) {
    // What `memrel run` asks of a child before any cell: a backend file's library must load and
    // export its symbols, else it is unusable input (exit 2, one line). Checked wherever the
    // cells could run (without a device, a device backend's cells are unavailable anyway). A
    // real cell loads it later, in make(), after its CUDA context: backend init includes it.
    if (backend.check_loadable && machine_runs_space(backend.space)) backend.check_loadable();
    return 0;
  }
  if (r.workload.empty() || (r.out.empty() && r.result_fd < 0))
    throw std::invalid_argument(std::string("cell: ") + cell_protocol::kWorkload + " and " +
                                cell_protocol::kOut + " (or " + cell_protocol::kResultFd +
                                ") are required (unless " + cell_protocol::kCheck + ")");
  if (!r.out.empty()) {
    // The backend file's library is an input too (the ninth adversarial pass,
    // c1-cell-out-is-plugin-library: `cell --out lib.so` wrote over the library it had loaded).
    std::vector<std::string> inputs = {r.workload, r.backend};
    try {
      const BackendInfo b = resolve_backend(r.backend, r.backends_dir);
      inputs.insert(inputs.end(), b.input_files.begin(), b.input_files.end());
    } catch (const std::exception&) {
      // An unknown backend is said below, where the cell resolves it.
    }
    check_output_file(r.out, inputs, cell_protocol::kOut);
  }
  Workload w = parse_workload_file(r.workload);
  CellOptions options;
  options.host_capacity_bytes =
      parse_byte_size(r.host_capacity, cell_protocol::kHostCapacity, kMaxRequestBytes);
  options.trace_scale_divisor = parse_trace_scale(r.trace_scale);
  options.after_pid = r.after_pid;
  CellResult result = run_cell(backend, w, options);
  nlohmann::json record = to_json(result);
  record[cell_protocol::kEnteredKey] =
      std::chrono::duration_cast<std::chrono::nanoseconds>(entered.time_since_epoch()).count();
  std::string text = record.dump(1) + "\n";
  try {
    if (r.result_fd >= 0)
      write_to_fd(r.result_fd, text);
    else
      write_file_atomically(r.out, text);
  } catch (const std::runtime_error& e) {  // not the allocator's failure: the runner stops
    std::cerr << kCellResultNotWrittenLine << ": " << e.what() << "\n";
    // The runner's code (--result-fd) only for the runner; to a user who gave --out it is the
    // machine's state, exit 4, as every memrel writer says it (5 is none of memrel's exit codes:
    // the eighteenth adversarial pass, c8-cell-out-full-disk-exit5).
    return r.result_fd >= 0 ? kCellResultNotWritten : kMachineStateExitCode;
  }
  exit_slowly_if_asked(result);
  return 0;
}

int serve_cell_zygote(const CellRequest& r,
                      const std::function<int(const std::vector<std::string>&)>& run_command_line) {
  // The runner's socket is on descriptor 3; without it there is no one to serve, and the zygote
  // ended at once, exit 0, silent (the thirty-third adversarial pass, c9-cell-zygote-silent-exit0).
  if (fcntl(cell_protocol::kResultDescriptor, F_GETFD) == -1)
    throw std::invalid_argument(std::string(cell_protocol::kZygote) + ": descriptor " +
                                std::to_string(cell_protocol::kResultDescriptor) +
                                " is not open (memrel run starts a zygote with its socket there)");
  std::string refusal;
  try {
    BackendInfo backend = resolve_backend(r.backend, r.backends_dir);
    if (backend.space == MemorySpace::kDevice) preload_device_driver();
    if (backend.preload) backend.preload();
    if (!r.preload_program.empty())
      program_family(r.preload_program).preload_program(r.preload_program);
    refusal = fork_hazard();
  } catch (const std::exception& e) {
    refusal = e.what();
  }
  return serve_zygote(cell_protocol::kResultDescriptor, run_command_line, refusal);
}

}  // namespace memrel
