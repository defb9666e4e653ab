// memrel_bench: Google Benchmark latency benchmarks of one memrel backend per process.
// Usage, names, counters and exit codes: --help and docs/benchmarks.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "allocators/allocator_environment.hpp"
#include "allocators/backend_table.hpp"
#include "benchmarks/benchmark_families.hpp"
#include "benchmarks/command_line.hpp"
#include "benchmarks/finite_json_reporter.hpp"
#include "benchmarks/time_split_reporter.hpp"
#include "platform/device_probe.hpp"
#include "platform/run_context.hpp"

namespace {

using namespace memrel;
using namespace memrel::bench;

// The project's exit codes (README.md), as far as they apply to a benchmark run.
constexpr int kExitSuccess = 0;  // also when the backend cannot run here: see unavailable()
constexpr int kExitUsage = 2;
constexpr int kExitBenchmarkFailed = 3;
constexpr int kExitInternalError = 4;

// Names what the JSON promises beyond Google Benchmark's own schema: the benchmark names, the
// counters and the memrel_* context keys of docs/benchmarks.md. Bump it when they change.
constexpr const char* kBenchFormat = "memrel.bench/1";

void print_help() {
  std::cout
      << "Usage: memrel_bench --backend NAME|FILE [--backends-dir DIR] [--quick] [--min-time S] "
         "[Google Benchmark "
         "options]\n"
         "\n"
         "Latency benchmarks of one memrel backend: pair, alloc, free (warm and cold), release\n"
         "and churn, named <operation>/<backend>/<mode>/<bytes> (docs/benchmarks.md). One\n"
         "backend per process, because PyTorch reads its allocator settings once per process.\n"
         "\n"
         "  --backend NAME   one of: "
      << backend_names_joined()
      << ";\n"
         "                   or a backend file (memrel.backend/1, docs/pluggable-backends.md),\n"
         "                   by its name in --backends-dir or its path\n"
         "  --backends-dir DIR  backend files found by name (default: "
      << default_backends_dir()
      << ")\n"
         "  --quick          4 sizes and a short churn (CI on host backends: under 30 s)\n"
         "  --min-time S     Google Benchmark's minimum time per repetition, in seconds, in the\n"
         "                   form this build's Google Benchmark reads\n"
         "  --list-backends  print every backend's name, one a line, and exit\n"
         "  --help, -h       this text, then Google Benchmark's options\n"
         "\n"
         "Unless given, --benchmark_min_time="
      << kMinTimeSeconds << " and --benchmark_repetitions=" << kRepetitions
      << ". Write JSON with\n"
         "--benchmark_out=FILE --benchmark_out_format=json.\n"
         "\n"
         "Exit codes: 0 success, or the backend cannot run here (one line on stderr says why,\n"
         "and no benchmark runs, so no --benchmark_out file is written); 2 bad option or unknown\n"
         "backend; 3 a benchmark failed (out of memory, allocator error) or the backend failed\n"
         "to start; 4 internal error.\n"
         "\n"
         "Google Benchmark's options:\n";
  benchmark::PrintDefaultHelp();
}

// Scripts run every backend in a loop; one that cannot run here (no GPU, no libtorch) is a
// fact to report, not a failure.
int unavailable(const std::string& backend, const std::string& reason) {
  std::cerr << "memrel_bench: backend " << backend << " unavailable: " << reason << "\n";
  return kExitSuccess;
}

// PyTorch reads its allocator settings (PYTORCH_CUDA_ALLOC_CONF) once, when its library loads,
// so a backend's environment must be in place from the start of the process. The runner sets it
// before exec for a cell; memrel_bench sets it and runs itself again.
void exec_again_if_backend_environment_differs(const BackendInfo& backend, char** argv) {
  bool differs = false;
  for (const auto& [name, value] : backend.cell_environment) {
    const char* current = std::getenv(name.c_str());
    if (current != nullptr && value == current) continue;
    setenv(name.c_str(), value.c_str(), 1);
    differs = true;
  }
  if (!differs) return;
  execv("/proc/self/exe", argv);
  throw std::runtime_error(std::string("cannot run itself again with backend ") + backend.name +
                           "'s environment: " + std::strerror(errno));
}

// memrel_* keys beside Google Benchmark's own context, so that a reader (the gate refuses to
// compare different GPUs) knows what ran, where and how.
void add_memrel_context(const BackendInfo& backend, const MeasurementPlan& plan,
                        const std::vector<std::string>& benchmark_arguments,
                        const DeviceProbe* device) {
  benchmark::AddCustomContext("memrel_bench_format", kBenchFormat);
  benchmark::AddCustomContext("memrel_backend", backend.name);
  benchmark::AddCustomContext("memrel_backend_description", backend.description);
  benchmark::AddCustomContext("memrel_memory_space",
                              backend.space == MemorySpace::kDevice ? "device" : "host");
  benchmark::AddCustomContext("memrel_measurement", plan.quick ? "quick" : "default");
  std::string arguments;
  for (std::size_t i = 1; i < benchmark_arguments.size(); ++i) {
    arguments += (i > 1 ? " " : "") + benchmark_arguments[i];
  }
  benchmark::AddCustomContext("memrel_benchmark_arguments", arguments);
  benchmark::AddCustomContext("memrel_churn",
                              nlohmann::json{{"allocations", plan.churn.allocations},
                                             {"max_block_bytes", plan.churn.max_block_bytes},
                                             {"max_live_bytes", plan.churn.max_live_bytes},
                                             {"seeds", kChurnSeeds}}
                                  .dump());
  benchmark::AddCustomContext("memrel_allocator_environment",
                              nlohmann::json(allocator_environment()).dump());
  // Host, git commit, GPU, driver and CUDA runtime, as a results file records them.
  const nlohmann::json context = run_context();
  for (const auto& [key, value] : context.items()) {
    if (value.is_null()) continue;
    const std::string name = key.rfind("memrel_", 0) == 0 ? key : "memrel_" + key;
    benchmark::AddCustomContext(name, value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (device != nullptr) {
    const DeviceDescription& d = device->description();
    benchmark::AddCustomContext(
        "memrel_device",
        nlohmann::json{{"name", d.name},
                       {"pci_bus_id", d.pci_bus_id},
                       {"total_bytes", d.total_bytes},
                       {"compute_capability", std::to_string(d.compute_capability_major) + "." +
                                                  std::to_string(d.compute_capability_minor)},
                       {"cuda_runtime_version", d.cuda_runtime_version},
                       {"cuda_driver_version", d.cuda_driver_version}}
            .dump());
  }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int run(int argc, char** argv) {
  const auto process_start = std::chrono::steady_clock::now();
  const BenchCommandLine command_line = parse_command_line(argc, argv);
  if (command_line.help) {
    print_help();
    return kExitSuccess;
  }
  if (command_line.list_backends) {
    for (const BackendInfo& b : all_backends()) std::cout << b.name << "\n";
    for (const BackendInfo& b : folder_backends(command_line.backends_dir)) {
      std::cout << b.name << "\n";
    }
    return kExitSuccess;
  }
  if (command_line.backend.empty()) {
    throw UsageError("--backend NAME is required (valid: " + backend_names_joined() + ")");
  }
  // A compiled backend, or a backend file (memrel.backend/1) by name or path, as `memrel run -b`
  // takes it; a bad file is a usage error (BackendFileError is an invalid_argument).
  BackendInfo resolved;
  try {
    resolved = resolve_backend(command_line.backend, command_line.backends_dir);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const BackendInfo* backend = &resolved;
  exec_again_if_backend_environment_differs(*backend, argv);

  const MeasurementPlan plan = measurement_plan(command_line.quick, backend->space);
  // Google Benchmark checks its own options first, so that a bad one is reported as such even on
  // a machine where the backend cannot run.
  std::vector<std::string> benchmark_arguments =
      google_benchmark_arguments(argv[0], command_line, plan);
  std::vector<char*> benchmark_argv;
  for (std::string& a : benchmark_arguments) benchmark_argv.push_back(a.data());
  benchmark_argv.push_back(nullptr);
  int benchmark_argc = static_cast<int>(benchmark_arguments.size());
  benchmark::Initialize(&benchmark_argc, benchmark_argv.data());
  if (benchmark::ReportUnrecognizedArguments(benchmark_argc, benchmark_argv.data())) {
    return kExitUsage;
  }

  const Availability availability = backend->availability();
  if (!availability.available) return unavailable(backend->name, availability.reason);
  std::unique_ptr<DeviceProbe> device;  // holds the CUDA context for the whole run
  std::unique_ptr<Allocator> allocator;
  double context_seconds = 0, backend_init_seconds = 0;
  try {
    auto t = std::chrono::steady_clock::now();
    if (backend->space == MemorySpace::kDevice) device = DeviceProbe::create();
    context_seconds = seconds_since(t);
    t = std::chrono::steady_clock::now();
    allocator = backend->make();
    allocator->synchronize();
    backend_init_seconds = seconds_since(t);
  } catch (const Unavailable& e) {
    return unavailable(backend->name, e.what());
  } catch (const std::exception& e) {
    std::cerr << "memrel_bench: backend " << backend->name << " failed to start: " << e.what()
              << "\n";
    return kExitBenchmarkFailed;
  }
  add_memrel_context(*backend, plan, benchmark_arguments, device.get());

  PeakReservedMemoryManager memory(*allocator);
  // Without a reserved figure the memory run would only report zeros that look like data.
  if (allocator->usage().reserved) benchmark::RegisterMemoryManager(&memory);
  const BenchmarkTarget target{backend->name, *allocator, memory, plan};
  register_block_benchmarks(target);
  register_release_benchmarks(target);
  register_churn_benchmarks(target);

  // Google Benchmark makes its own reporter for every output that is not JSON. The file's
  // reporter also times the benchmarks (TimeSplitReporter: the JSON is the same).
  FiniteJsonReporter json_display;
  TimeSplitReporter json_file;
  const bool display_json =
      google_benchmark_flag(command_line, "benchmark_format", "console") == "json";
  const bool file_json =
      !google_benchmark_flag(command_line, "benchmark_out", "").empty() &&
      google_benchmark_flag(command_line, "benchmark_out_format", "json") == "json";
  const double start_seconds = seconds_since(process_start);
  benchmark::RunSpecifiedBenchmarks(display_json ? &json_display : nullptr,
                                    file_json ? &json_file : nullptr);
  if (file_json)
    std::cerr << "memrel_bench: " << backend->name << ": "
              << json_file.summary(start_seconds, context_seconds, backend_init_seconds) << "\n";
  benchmark::RegisterMemoryManager(nullptr);
  benchmark::Shutdown();
  if (failure_count() > 0) {
    std::cerr << "memrel_bench: " << failure_count() << " benchmark run(s) of backend "
              << backend->name << " failed (see their error_message)\n";
    return kExitBenchmarkFailed;
  }
  return kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "memrel_bench: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "memrel_bench: internal error: " << e.what() << "\n";
    return kExitInternalError;
  }
}
