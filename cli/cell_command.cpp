// `memrel cell`: one cell in this process. The runner execs it for every cell (harness/runner),
// so each gets a clean CUDA context and its own allocator settings; by hand, it is for debugging.
#include <memory>

#include "allocators/backend_table.hpp"
#include "allocators/pluggable/pluggable_allocator.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "harness/cell.hpp"
#include "harness/trace_plan.hpp"
#include "harness/workload.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"

namespace memrel::cli {
namespace {

struct CellArgs {
  std::string backend, workload, out, host_capacity = "1GiB", trace_scale = "auto";
  bool check = false;
};

}  // namespace

RunSubcommand attach_cell(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<CellArgs>();
  app.add_option("--backend", a->backend, "Backend name or backend file")->required();
  app.add_option("--workload", a->workload, "Workload file (required unless --check)");
  app.add_option("--out", a->out, "Cell result file (required unless --check)");
  app.add_option("--host-capacity", a->host_capacity)->capture_default_str();
  app.add_option("--trace-scale", a->trace_scale,
                 "Traces: divide every size by N (1/N), or auto (docs/traces.md)")
      ->capture_default_str();
  app.add_flag("--check", a->check,
               "Only load the backend's library and resolve its symbols (backend files); run "
               "nothing");
  return [a, &global] {
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
    if (a->workload.empty() || a->out.empty())
      throw std::invalid_argument("cell: --workload and --out are required (unless --check)");
    Workload w = parse_workload_file(a->workload);
    CellOptions options;
    options.host_capacity_bytes =
        parse_byte_size(a->host_capacity, "--host-capacity", kMaxRequestBytes);
    options.trace_scale_divisor = parse_trace_scale(a->trace_scale);
    CellResult result = run_cell(backend, w, options);
    write_file_atomically(a->out, to_json(result).dump(1) + "\n");
    return exit_code::kSuccess;
  };
}

}  // namespace memrel::cli
