// memrel: the command line. Subcommands and exit codes are documented in --help and README.md.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "allocators/registry.hpp"
#include "harness/cell.hpp"
#include "harness/cli_support.hpp"
#include "harness/results.hpp"
#include "harness/runner.hpp"
#include "harness/workload.hpp"

#ifndef MEMREL_SOURCE_DIR
#define MEMREL_SOURCE_DIR "."
#endif

namespace fs = std::filesystem;
using namespace memrel;

namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 regression found (compare); 2 unusable input (bad workload, results "
    "or baseline file, unknown backend or workload, bad option); 3 the suite ran but a cell "
    "crashed, timed out or failed; 4 internal error.";

std::string self_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "memrel" : p.string();
}

int cmd_list(bool as_json, const std::string& workloads_dir) {
  nlohmann::json out = {{"backends", nlohmann::json::array()},
                        {"workloads", nlohmann::json::array()}};
  for (const auto& b : all_backends()) {
    Availability a = b.availability();
    out["backends"].push_back({{"name", b.name},
                               {"description", b.description},
                               {"space", b.space == MemorySpace::kDevice ? "device" : "host"},
                               {"available", a.available},
                               {"reason", a.reason}});
  }
  for (const auto& path : all_workload_files(workloads_dir)) {
    try {
      Workload w = parse_workload_file(path);
      out["workloads"].push_back(
          {{"name", w.name}, {"path", path}, {"description", w.description}, {"valid", true}});
    } catch (const WorkloadError& e) {
      out["workloads"].push_back({{"name", fs::path(path).stem().string()},
                                  {"path", path},
                                  {"valid", false},
                                  {"error", e.what()}});
    }
  }
  if (as_json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "Backends:\n";
  for (const auto& b : out["backends"]) {
    std::cout << "  " << b["name"].get<std::string>()
              << std::string(20 - std::min<std::size_t>(19, b["name"].get<std::string>().size()),
                             ' ')
              << (b["available"].get<bool>() ? "available    " : "unavailable  ")
              << b["description"].get<std::string>();
    if (!b["available"].get<bool>())
      std::cout << "\n" << std::string(35, ' ') << "why: " << b["reason"].get<std::string>();
    std::cout << "\n";
  }
  std::cout << "Workloads (" << workloads_dir << "):\n";
  for (const auto& w : out["workloads"]) {
    std::string name = w["name"].get<std::string>();
    std::cout << "  " << name << std::string(24 - std::min<std::size_t>(23, name.size()), ' ')
              << (w["valid"].get<bool>() ? w["description"].get<std::string>()
                                         : "INVALID: " + w["error"].get<std::string>())
              << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"memrel: how much GPU memory really returns to the device, how fast, at what cost."};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  std::string workloads_dir = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads";
  app.add_option("--workloads-dir", workloads_dir, "Folder of workload JSON files")
      ->capture_default_str();

  bool list_json = false;
  CLI::App* list =
      app.add_subcommand("list", "List backends (with availability here) and workloads");
  list->add_flag("--json", list_json, "Print JSON");
  bool list_available = false;
  list->add_flag(
      "--available-backends", list_available,
      "Print only the names of the backends that can run here, one a line (for scripts)");

  std::vector<std::string> validate_files;
  CLI::App* validate = app.add_subcommand("validate", "Check workload files without running them");
  validate->add_option("files", validate_files, "Workload files")->required();

  RunOptions run_options;
  std::vector<std::string> run_backends, run_workloads;
  std::string run_out, host_capacity = "1GiB";
  bool include_null = false;
  CLI::App* run =
      app.add_subcommand("run", "Run every (backend, workload) cell, each in its own process");
  run->add_option("-b,--backend", run_backends,
                  "Backends (repeat or comma-separate; default: all but null)")
      ->delimiter(',');
  run->add_option("-w,--workload", run_workloads,
                  "Workload names or files (default: every file in --workloads-dir)")
      ->delimiter(',');
  run->add_option("-o,--out", run_out, "Results file (default: results/runs/run-TIME.json)");
  run->add_option("--timeout", run_options.cell_timeout_s,
                  "Seconds before a cell is killed and recorded as timeout")
      ->capture_default_str();
  run->add_option("--host-capacity", host_capacity,
                  "What device_fraction means for host backends (bytes, or with KiB/MiB/GiB)")
      ->capture_default_str();
  run->add_option("--module-loading", run_options.module_loading,
                  "CUDA_MODULE_LOADING for every cell")
      ->check(CLI::IsMember({"LAZY", "EAGER"}));
  run->add_flag("--include-null", include_null,
                "Also run the null backend (measures memrel itself)");

  std::string cell_backend, cell_workload, cell_out, cell_capacity = "1GiB";
  CLI::App* cell = app.add_subcommand(
      "cell", "Run one cell in this process (the runner's child; for debugging)");
  cell->add_option("--backend", cell_backend)->required();
  cell->add_option("--workload", cell_workload, "Workload file")->required();
  cell->add_option("--out", cell_out, "Cell result file")->required();
  cell->add_option("--host-capacity", cell_capacity)->capture_default_str();

  register_extra_subcommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    if (*list && list_available) {
      for (const auto& b : all_backends()) {
        if (b.availability().available) std::cout << b.name << "\n";
      }
      return 0;
    }
    if (*list) return cmd_list(list_json, workloads_dir);
    if (*validate) {
      int rc = 0;
      for (const auto& f : validate_files) {
        try {
          Workload w = parse_workload_file(f);
          std::cout << f << ": ok (" << w.name << ", " << w.steps.size() << " steps)\n";
        } catch (const WorkloadError& e) {
          std::cerr << "memrel: " << e.what() << "\n";
          rc = 2;
        }
      }
      return rc;
    }
    if (*cell) {
      Workload w = parse_workload_file(cell_workload);
      CellOptions options;
      options.host_capacity_bytes = parse_byte_size(cell_capacity, "--host-capacity");
      CellResult result = run_cell(find_backend(cell_backend), w, options);
      write_file_atomically(cell_out, to_json(result).dump(1) + "\n");
      return 0;
    }
    if (*run) {
      if (run_backends.empty()) {
        for (const auto& b : all_backends()) {
          if (b.name != "null" || include_null) run_backends.push_back(b.name);
        }
      }
      for (const auto& b : run_backends) find_backend(b);  // reject unknown names before any cell
      run_options.backends = run_backends;
      run_options.workload_paths = resolve_workloads(run_workloads, workloads_dir);
      for (const auto& p : run_options.workload_paths) parse_workload_file(p);
      run_options.cell.host_capacity_bytes = parse_byte_size(host_capacity, "--host-capacity");
      run_options.memrel_executable = self_executable();
      if (run_out.empty())
        run_out = default_run_path(std::string(MEMREL_SOURCE_DIR) + "/results/runs");
      fs::path out_dir = fs::path(run_out).parent_path();
      if (!out_dir.empty()) fs::create_directories(out_dir);
      RunResults results = run_suite(run_options, std::cerr);
      write_file_atomically(run_out, to_json(results).dump(1) + "\n");
      int failed = 0;
      for (const auto& c : results.cells)
        failed += (c.status == "crashed" || c.status == "timeout" || c.status == "error");
      std::cout << run_out << "\n";
      std::cerr << "memrel: " << results.cells.size() << " cells written to " << run_out;
      if (failed) std::cerr << "; " << failed << " crashed, timed out or failed";
      std::cerr << "\n";
      return failed ? 3 : 0;
    }
    return run_extra_subcommand(app);
  } catch (const WorkloadError& e) {
    std::cerr << "memrel: " << e.what() << "\n";
    return 2;
  } catch (const ResultsError& e) {
    std::cerr << "memrel: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "memrel: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "memrel: internal error: " << e.what() << "\n";
    return 4;
  }
}
