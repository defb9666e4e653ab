// The results model and its JSON form, schema "memrel.results/1" (docs/results-schema.md).
//
// One place reads and writes it: the runner, the gate and the report all go through here (the
// Python plots read the same documented format). Readers refuse a document of another schema
// rather than guess.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/results/trace_results.hpp"
#include "platform/nul_escaped.hpp"

namespace memrel {

constexpr const char* kResultsSchema = "memrel.results/1";
constexpr const char* kCellSchema = "memrel.cell/1";

// "FILE: message", one line: a results file that is missing, malformed or of another schema.
class ResultsError : public std::runtime_error {
 public:
  explicit ResultsError(const std::string& what) : std::runtime_error(nul_escaped(what)) {}
};

// The four views of memory at one moment. All figures are bytes.
struct Snapshot {
  std::uint64_t requested = 0;             // what the workload holds live
  std::optional<std::uint64_t> allocated;  // the allocator's own view
  std::optional<std::uint64_t> reserved;
  std::uint64_t device_used = 0;              // driver (device backends) or RSS (host backends)
  std::int64_t device_used_delta = 0;         // device_used - the cell's baseline
  std::optional<std::uint64_t> process_used;  // NVML's charge to this process (device only)
  std::uint64_t host_rss = 0;
};

struct MarkRecord {
  std::string label;
  std::size_t step = 0;  // index into steps: the mark follows this many steps
  Snapshot at;
};

// One executed step. `after` is probed once the step's clock has stopped (NVML is left out of
// per-step probes: it takes milliseconds).
struct StepRecord {
  std::string op;  // alloc, free, release, mark, sleep
  std::string id;
  std::string location;  // in the workload file
  std::uint64_t bytes = 0;
  std::uint64_t latency_ns = 0;
  std::string outcome = "ok";  // ok, oom
  Snapshot after;
};

struct ReleaseRecord {
  std::size_t step = 0;
  std::uint64_t latency_ns = 0;
  Snapshot before, after;
};

// Where every byte of the process's footprint came from before the workload's first step.
struct CellSetup {
  std::string memory_space;                                 // device, host
  std::optional<std::uint64_t> context_create_ns;           // cudaFree(0), device backends
  std::optional<std::uint64_t> device_used_before_context;  // unknown without a context: left empty
  std::optional<std::uint64_t> device_used_after_context;
  std::optional<std::uint64_t> process_used_after_context;  // the context's own size (NVML)
  std::uint64_t backend_init_ns = 0;
  std::int64_t backend_init_device_bytes = 0;  // device used moved by backend init
  std::optional<std::int64_t> backend_init_process_bytes;
  std::uint64_t baseline_device_used = 0;  // after context + init: deltas start here
  std::uint64_t baseline_host_rss = 0;
  std::uint64_t capacity_bytes = 0;                // what device_fraction is taken of
  std::string process_probe_note;                  // why process_used is empty, if it is
  nlohmann::json device;                           // DeviceDescription, null for host
  std::map<std::string, std::string> environment;  // allocator settings the cell ran with
  // The backend's settings (NAME:KEY=VALUE,...: allocators/backend_settings.hpp), canonical;
  // empty for a backend that runs its library's defaults (then left out of the file, as in files
  // written before settings).
  std::map<std::string, std::string> settings;
};

struct ReleaseEffect {
  std::size_t step = 0;
  std::uint64_t releasable = 0;         // reserved before - allocated after
  std::int64_t returned = 0;            // device used before - device used after
  std::optional<double> effectiveness;  // returned / releasable; empty when nothing releasable
};

struct CellMetrics {
  std::uint64_t peak_requested = 0;
  std::optional<std::uint64_t> peak_allocated, peak_reserved;
  std::int64_t peak_device_used_delta = 0;
  std::optional<std::int64_t> max_overhead_bytes;  // max over probes of reserved - requested
  std::optional<double> overhead_ratio;            // peak reserved / peak requested
  std::optional<double> utilization;               // peak allocated / peak reserved
  std::vector<ReleaseEffect> releases;
  std::optional<double> release_effectiveness;             // sum returned / sum releasable
  std::optional<std::int64_t> residual_bytes;              // delta after last release - requested
  std::map<std::string, std::uint64_t> median_latency_ns;  // per op
};

// Which allocator layer a framework program's memory came from (docs/torch.md); program cells
// only. The framework names the family whose program ran; the allocator is the framework's own
// ("native", "cudaMallocAsync") or its pluggable interface over this cell's backend.
struct ProgramAllocatorRecord {
  std::string framework;    // empty in files written before the families (one framework then)
  std::string allocator;    // likewise empty there: they named it "<framework>_allocator"
  std::string cache_layer;  // who holds freed blocks for reuse: the framework or "backend"
};

// The GPU a cell was pinned to (`memrel run --gpus`): NVML's index and UUID (null for a fake
// GPU), so that cells can be joined with each GPU's description.
struct CellGpu {
  std::uint64_t index = 0;
  std::optional<std::string> uuid;
};

// Where a cell's time went (docs/results-schema.md, "timing"): the parts do not overlap, and
// what wall_ns holds beyond their sum is the rest (handing the result over, the process's exit,
// the runner noticing it). Written by the cell and completed by the runner (started_by,
// spawn_ns); absent in files written before it and for cells that never ran.
struct CellTiming {
  std::string started_by;             // "exec" (fork + exec) or "zygote" (forked from a warm one)
  std::uint64_t spawn_ns = 0;         // the runner's start to the cell's first line of its own
  std::uint64_t library_load_ns = 0;  // family libraries loaded in the cell (a framework)
  std::uint64_t context_ns = 0;       // the CUDA context (setup.context_create_ns); 0 for host
  std::uint64_t backend_init_ns = 0;  // making the allocator, less library_load_ns within it
  std::uint64_t work_ns = 0;          // the steps or the replay, less probes and library loads
  std::uint64_t probe_ns = 0;         // the probes at marks, releases and after steps
  // Not within the parts above (it follows the context): waiting for the slot's previous cell to
  // end. Part of the rest.
  std::uint64_t previous_exit_wait_ns = 0;
  // The runner's: from the result being in to the process reaped (its exit, the driver's
  // teardown of its context); 0 where the result was never seen whole before the exit.
  std::uint64_t exit_ns = 0;
  // Whether the next cell of the slot started during that exit (RunOptions::exit_overlap).
  bool exit_overlapped = false;
};

struct CellResult {
  std::string backend, workload, workload_source;
  std::string status;  // ok, oom, unavailable, crashed, timeout, error
  std::string reason;
  std::uint64_t wall_ns = 0;
  CellSetup setup;
  std::vector<MarkRecord> marks;
  std::vector<StepRecord> steps;
  std::vector<ReleaseRecord> releases;
  CellMetrics metrics;
  std::optional<TraceReplay> trace;                         // trace cells only (docs/traces.md)
  std::optional<ProgramAllocatorRecord> program_allocator;  // cells that ran a program
  std::optional<CellGpu> gpu;                               // runs with --gpus only
  std::optional<CellTiming> timing;                         // cells that ran (issue 25)
};

struct RunResults {
  nlohmann::json context;  // time, host, git commit, memrel version, gpu, options
  std::vector<CellResult> cells;
};

nlohmann::json to_json(const CellResult& cell);
CellResult cell_from_json(const nlohmann::json& j);  // throws ResultsError
nlohmann::json to_json(const RunResults& run);
RunResults run_from_json(const nlohmann::json& j);  // throws ResultsError

// The cap on a results or Google Benchmark JSON file (docs/inputs.md): 7x the largest real one
// (an H200 suite, 17 MiB); parsed, a file takes about 20 times its size in memory.
constexpr std::uint64_t kMaxResultsFileBytes = std::uint64_t{128} << 20;

// A results or Google Benchmark JSON file by the input rules (platform/input_rules.hpp), or
// ResultsError naming it: missing, not a regular file, empty, over kMaxResultsFileBytes,
// malformed (with the byte), or ambiguous (a key twice in one object, with its place).
nlohmann::json read_json_file(const std::string& path);

// Throws ResultsError naming the file.
RunResults read_run_file(const std::string& path);

}  // namespace memrel
