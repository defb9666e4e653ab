// `memrel cell`: one cell in this process. The runner execs it for every cell (harness/runner),
// so each gets a clean CUDA context and its own allocator settings; by hand, it is for debugging.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>

#include "allocators/backend_table.hpp"
#include "allocators/pluggable/pluggable_allocator.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "harness/execution/cell.hpp"
#include "harness/execution/cell_exit.hpp"
#include "harness/workload/trace_plan.hpp"
#include "harness/workload/workload.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"
#include "platform/child_process.hpp"

namespace memrel::cli {
namespace {

struct CellArgs {
  std::string backend, workload, out, host_capacity = "1GiB", trace_scale = "auto";
  int result_fd = -1;
  bool check = false;
};

// The runner's way: an anonymous file it opened, read back once this process has exited.
void write_to_fd(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("--result-fd " + std::to_string(fd) + ": write failed (" +
                               std::strerror(errno) + ")");
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

RunSubcommand attach_cell(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<CellArgs>();
  app.add_option("--backend", a->backend, "Backend name or backend file")->required();
  app.add_option("--workload", a->workload, "Workload file (required unless --check)");
  app.add_option("--out", a->out, "Cell result file (--out or --result-fd, unless --check)");
  app.add_option("--result-fd", a->result_fd,
                 "Write the result to this open file descriptor instead (the runner's way)")
      ->check(CLI::Range(3, 1023))
      ->excludes("--out");
  app.add_option("--host-capacity", a->host_capacity)->capture_default_str();
  app.add_option("--trace-scale", a->trace_scale,
                 "Traces: divide every size by N (1/N), or auto (docs/traces.md)")
      ->capture_default_str();
  app.add_flag("--check", a->check,
               "Only load the backend's library and resolve its symbols (backend files); run "
               "nothing");
  return [a, &global] {
    // Started by the runner (a group of its own): whatever this cell starts ends with it, also
    // when the runner dies (the parent-death signal is SIGTERM).
    end_own_group_on_sigterm();
    BackendInfo backend = resolve_backend(a->backend, global.backends_dir);
    if (a->check) {
      // What `memrel run` asks of a child before any cell: a backend file's library must load
      // and export its symbols, else it is unusable input (exit 2, one line). Checked wherever
      // the cells could run (without a device, a device backend's cells are unavailable anyway).
      // A real cell loads it later, in make(), after its CUDA context: backend init includes it.
      if (backend.kind == BackendKind::kPluggable && machine_runs_space(backend.space))
        load_pluggable_library(parse_backend_file(backend.file));
      return exit_code::kSuccess;
    }
    if (a->workload.empty() || (a->out.empty() && a->result_fd < 0))
      throw std::invalid_argument(
          "cell: --workload and --out (or --result-fd) are required (unless --check)");
    if (!a->out.empty()) check_output_file(a->out, {a->workload, a->backend}, "--out");
    Workload w = parse_workload_file(a->workload);
    CellOptions options;
    options.host_capacity_bytes =
        parse_byte_size(a->host_capacity, "--host-capacity", kMaxRequestBytes);
    options.trace_scale_divisor = parse_trace_scale(a->trace_scale);
    CellResult result = run_cell(backend, w, options);
    std::string text = to_json(result).dump(1) + "\n";
    try {
      if (a->result_fd >= 0)
        write_to_fd(a->result_fd, text);
      else
        write_file_atomically(a->out, text);
    } catch (const std::runtime_error& e) {  // not the allocator's failure: the runner stops
      std::cerr << "memrel cell: the result could not be written: " << e.what() << "\n";
      return kCellResultNotWritten;
    }
    return exit_code::kSuccess;
  };
}

}  // namespace memrel::cli
