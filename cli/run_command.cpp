// `memrel run`: every (backend, workload) cell, each in its own process, into one results file.
// Every name and file is checked before the first cell runs, so a typo costs nothing.
#include <filesystem>
#include <iostream>
#include <memory>

#include "allocators/backend_table.hpp"
#include "allocators/pluggable/pluggable_allocator.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "cli/trace_import.hpp"
#include "harness/run_summary.hpp"
#include "harness/runner.hpp"
#include "harness/trace_plan.hpp"
#include "harness/workload.hpp"
#include "harness/workload_files.hpp"
#include "platform/atomic_file.hpp"
#include "platform/byte_size.hpp"

#ifndef MEMREL_SOURCE_DIR
#define MEMREL_SOURCE_DIR "."
#endif

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

struct RunArgs {
  RunOptions options;
  std::vector<std::string> backends, workloads;
  std::string out, host_capacity = "1GiB", trace_scale = "auto";
  bool include_null = false;
};

std::string self_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "memrel" : p.string();
}

int run_run(RunArgs& a, const GlobalOptions& global) {
  a.options.backends_dir = global.backends_dir;
  a.options.memrel_executable = self_executable();
  if (a.backends.empty()) {
    for (const auto& b : all_backends()) {
      if (b.name != "null" || a.include_null) a.backends.push_back(b.name);
    }
    for (const auto& b : folder_backends(global.backends_dir)) a.backends.push_back(b.name);
  }
  // Reject unknown names and bad files before any cell.
  std::vector<BackendInfo> backends;
  for (const auto& name : a.backends)
    backends.push_back(resolve_backend(name, global.backends_dir));
  a.options.backends = a.backends;
  a.options.cell.host_capacity_bytes =
      parse_byte_size(a.host_capacity, "--host-capacity", kMaxRequestBytes);
  a.options.cell.trace_scale_divisor = parse_trace_scale(a.trace_scale);
  // Snapshots and RMM logs become temporary traces, removed when this function returns.
  ImportedTraces imported;
  a.options.workload_paths.clear();
  for (const auto& p : resolve_workloads(a.workloads, global.workloads_dir))
    a.options.workload_paths.push_back(imported.prepare(p));
  for (const auto& p : a.options.workload_paths) parse_workload_file(p);
  // A backend file's library must load and export its symbols, checked in a child process (the
  // parent never loads one) wherever its cells could run.
  for (std::size_t i = 0; i < backends.size(); ++i) {
    if (backends[i].kind != BackendKind::kPluggable || !machine_runs_space(backends[i].space))
      continue;
    std::string error = check_backend_process(a.options, a.backends[i]);
    if (!error.empty()) throw std::invalid_argument(error);
  }
  if (a.out.empty()) a.out = default_run_path(std::string(MEMREL_SOURCE_DIR) + "/results/runs");
  fs::path out_dir = fs::path(a.out).parent_path();
  if (!out_dir.empty()) fs::create_directories(out_dir);
  RunResults results = run_suite(a.options, std::cerr);
  // Results name the files the user gave, not the temporary traces made from them.
  for (auto& c : results.cells) {
    c.workload_source = imported.original(c.workload_source);
    if (c.trace) c.trace->file = imported.original(c.trace->file);
  }
  for (auto& w : results.context["options"]["workloads"])
    w = imported.original(w.get<std::string>());
  write_file_atomically(a.out, to_json(results).dump(1) + "\n");
  int failed = 0;
  for (const auto& c : results.cells)
    failed += (c.status == "crashed" || c.status == "timeout" || c.status == "error");
  std::cout << a.out << "\n";
  std::cerr << run_summary(results.cells);
  std::cerr << "memrel: " << results.cells.size() << " cells written to " << a.out;
  if (failed) std::cerr << "; " << failed << " crashed, timed out or failed";
  std::cerr << "\n";
  return failed ? exit_code::kCellFailed : exit_code::kSuccess;
}

}  // namespace

RunSubcommand attach_run(CLI::App& app, const GlobalOptions& global) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-b,--backend", a->backends,
                 "Backends: names, or backend files (docs/pluggable-backends.md); repeat or "
                 "comma-separate (default: all but null, and every file of --backends-dir)")
      ->delimiter(',');
  app.add_option("-w,--workload", a->workloads,
                 "Workload names or files, or traces: FILE.memtrace, a PyTorch snapshot .pickle or "
                 "an RMM log .csv (docs/traces.md) (default: every file in --workloads-dir)")
      ->delimiter(',');
  app.add_option("-o,--out", a->out, "Results file (default: results/runs/run-TIME.json)");
  app.add_option("--timeout", a->options.cell_timeout_s,
                 "Seconds before a cell is killed and recorded as timeout")
      ->capture_default_str();
  app.add_option("--host-capacity", a->host_capacity,
                 "What device_fraction means for host backends (bytes, or with KiB/MiB/GiB)")
      ->capture_default_str();
  app.add_option("--trace-scale", a->trace_scale,
                 "Traces (-w FILE.memtrace, .pickle or .csv): divide every size by N (1/N), or "
                 "auto: host backends fit --host-capacity, device backends replay as recorded")
      ->capture_default_str();
  app.add_option("--module-loading", a->options.module_loading,
                 "CUDA_MODULE_LOADING for every cell")
      ->check(CLI::IsMember({"LAZY", "EAGER"}));
  app.add_flag("--include-null", a->include_null,
               "Also run the null backend (measures memrel itself)");
  return [a, &global] { return run_run(*a, global); };
}

}  // namespace memrel::cli
