// Launches memrel_bench, the latency benchmarks (benchmarks/main.cpp): one process per backend,
// one after another, or with GPUs one per GPU at a time, each seeing only its GPU. The one way
// memrel starts it: `memrel bench` runs a set of backends, `memrel ab` one process per round.
//
// The scheduling is the runner's (harness/execution/runner.hpp): children in process groups of
// their own (platform/child_process), looked at every few milliseconds, a child and its group
// killed at its timeout, and on SIGINT or SIGTERM every running one ended before Interrupted is
// thrown. All children are started by the calling thread: the parent-death signal follows the
// thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/gpu_selection.hpp"

namespace memrel {

// A backend's benchmarks beyond this are stuck, not slow: the whole set of every backend is meant
// to take minutes on the H200 (docs/benchmarks.md, "Measurement rules").
constexpr std::uint64_t kDefaultBenchTimeoutS = 1800;

// What every process of one launch shares.
struct BenchCommand {
  std::string bench;         // memrel_bench's path
  std::string backends_dir;  // passed as --backends-dir; empty: memrel_bench's own default
  bool quick = false;
  std::vector<std::string> bench_args;  // passed on as they are, after memrel's own
  std::uint64_t timeout_s = kDefaultBenchTimeoutS;
  // The command's inputs (memrel_bench, the backend files and the libraries they name): never
  // removed as a leftover temporary file, whatever their names.
  std::vector<std::string> inputs;
  // Why a results file (its content, and the path it would be kept as) is not Google Benchmark
  // JSON the gate reads, or "": a file it refuses is not kept, and the backend has failed. Set
  // by the command from the gate's reading rule, which lies above this layer; unset, any whole
  // JSON is kept.
  std::function<std::string(const std::string& content, const std::string& path)> results_problem;
  // Whether a results file (content, path) records a benchmark that did not run: a process that
  // exited 3 keeps the others' figures only then. Set by the command from the gate's reading
  // rule; unset, no file of a process that exited otherwise than 0 is kept.
  std::function<bool(const std::string& content, const std::string& path)> records_a_failure;
};

// One memrel_bench process: one backend's benchmarks into one Google Benchmark JSON file.
struct BenchJob {
  std::string backend;  // as memrel_bench --backend takes it: a name or a backend file's path
  std::string name;     // the backend's name, for lines and errors
  // Where its Google Benchmark JSON ends up: memrel_bench writes a temporary file beside it
  // (bench_temporary_path), renamed over it once the process has exited 0 with benchmarks in it,
  // or exited 3 with a file that records which benchmark failed (the others' figures kept;
  // write_file_atomically's rule), removed otherwise: a signal never leaves half a file here.
  // An old file there is removed first.
  std::string json_path;
  // Its stdout and stderr, written to a fresh LOG.tmp-PID renamed over it once the process has
  // ended (never written in place: a hard link there keeps its bytes); empty: an anonymous file,
  // gone afterwards.
  std::string log_path;
  std::map<std::string, std::string> environment;  // added to ours (and to the GPU's)
};

enum class BenchStatus {
  kOk,           // exited 0 and wrote its JSON file
  kUnavailable,  // exited 0 without a file: the backend cannot run here (memrel_bench says why)
  kNoneMatched,  // exited 0 having run no benchmark: the filter matched none; no file
  kFailed,       // exited non-zero: a benchmark or the backend's start failed
  kCrashed,      // killed by a signal
  kTimeout,      // killed at the timeout, with its process group
};

struct BenchOutcome {
  BenchStatus status = BenchStatus::kOk;
  int exit_code = 0;            // kFailed: the exit code; kCrashed: the signal
  std::string last_line;        // the last line of its output: why, when it did not run or failed
  double seconds = 0;           // wall time
  std::optional<unsigned> gpu;  // the GPU index it was pinned to
  // Its log is written but not yet in place (kUnavailable, kNoneMatched with a log_path): the
  // caller keeps it (keep_pending_log) once the bench stands, or drops it (drop_pending_log) when
  // the bench is refused, so that the last run's log stays.
  bool log_pending = false;
  bool file_written = false;  // its JSON file is this run's (kOk, or kFailed with figures)
};

// How a run of memrel_bench that did not succeed ended, in words for one line: "rc 1: WHY",
// "rc 139 (killed by SIGSEGV): WHY", "rc timeout: WHY", WHY its last line or "it printed
// nothing" (said alike by bench and ab: "failed in round 1 (exit 139):  (LOG)" named no signal
// and no reason, the fifty-ninth adversarial pass, c8-ab-bench-signal-said-as-exit-empty-reason).
std::string bench_end_text(const BenchOutcome& o);

// "bench-<name>.json": the file of a backend's benchmarks, named from the backend's name (never
// from a path), every character but letters, digits, '-', '_' and '.' replaced by '_', so that it
// is one plain file name in the folder: the name the scripts, the gate's folder pairing and the
// report expect (docs/benchmarks.md).
std::string bench_file_name(const std::string& backend_name);

// The most --benchmark_repetitions, and the most seconds of --benchmark_min_warmup_time (as
// --min-time's), that --bench-arg may give (docs/inputs.md).
constexpr int kMaxBenchRepetitions = 1000;
constexpr double kMaxBenchSeconds = 86400;

// Why an argument for memrel_bench (`--bench-arg`) is refused, or "" when it is not. Allowed are
// only Google Benchmark's options that change how it measures or what it prints to the log:
// --benchmark_repetitions (1 to kMaxBenchRepetitions), --benchmark_min_warmup_time (finite
// seconds above 0), --benchmark_enable_random_interleaving, --benchmark_display_aggregates_only,
// --benchmark_counters_tabular, --benchmark_color and --benchmark_time_unit. What memrel sets or
// reads itself (the output and its format, the filter, the minimum time, listings, help, the
// context) is refused with the memrel option to use instead.
std::string bench_arg_problem(const std::string& argument);

// Why an environment setting "NAME=VALUE" is refused for memrel_bench, or "" when it is not: Google
// Benchmark reads BENCHMARK_REPETITIONS as --benchmark_repetitions (every BENCHMARK_X as
// --benchmark_x), so each such variable obeys bench_arg_problem's rule. A setting of another name
// is none of its business. BENCHMARK_REPETITIONS=0 wrote a file of no benchmarks, exit 0, and
// BENCHMARK_MIN_TIME=nan ran for ever (the fifteenth adversarial pass, c4-bench-env-*).
std::string bench_environment_problem(const std::string& setting);

// The first of this process's environment settings bench_environment_problem refuses, said, or "".
std::string inherited_bench_environment_problem();

// `name` as one piece of a file name: bench_file_name's rule without its prefix and suffix.
std::string file_name_piece(const std::string& backend_name);

// The memrel_bench next to this executable: in its benchmarks/ subfolder (the build's layout),
// else in the same folder (an installation); empty when there is none.
std::string bench_beside_executable();

// JOB.json_path + ".tmp-PID": what memrel_bench writes until it has finished.
std::string bench_temporary_path(const BenchJob& job);

// The argv of a job's process: memrel_bench, --backends-dir, --backend, --quick, the JSON output,
// then bench_args.
std::vector<std::string> bench_arguments(const BenchCommand& command, const BenchJob& job);

// Every job, in order, one at a time with `gpus` empty (CUDA_VISIBLE_DEVICES as it is), else one
// per GPU at a time, each pinned to its GPU (gpu_environment). `on_done` is called as each ends
// (with GPUs, in the order they end). A memrel_bench that exits 2 (a usage error, the same for
// every backend) ends the running ones and throws std::invalid_argument with its last line; a
// JSON file cut off (not whole JSON: a full disk, a file size limit) or a process killed by
// SIGXFSZ throws std::runtime_error (the machine's state, exit 4), nothing of it kept;
// SIGINT, SIGTERM or SIGHUP (while an InterruptRequests exists) ends them, removes their
// temporary files (and the pending logs of those that ended) and throws Interrupted. A backend's
// file from an earlier run is replaced only by a whole new one: one that fails, measures nothing
// or is stopped leaves it as it was.
// Returns the outcomes in the jobs' order.
std::vector<BenchOutcome> run_bench_jobs(
    const BenchCommand& command, const std::vector<BenchJob>& jobs,
    const std::vector<GpuSlot>& gpus,
    const std::function<void(const BenchJob&, const BenchOutcome&)>& on_done);

// One job, as run_bench_jobs runs it without GPUs; its log put in place whatever the outcome.
BenchOutcome run_bench_job(const BenchCommand& command, const BenchJob& job);

// A pending log (BenchOutcome::log_pending) put in place by the output rule, or removed; either
// is a no-op for a job without a log_path or with no log pending.
void keep_pending_log(const BenchJob& job);
void drop_pending_log(const BenchJob& job);

}  // namespace memrel
