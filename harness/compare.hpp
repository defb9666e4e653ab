// The regression gate behind `memrel compare BASELINE CURRENT` (docs/gate.md).
//
// It compares a baseline with a current run, file by file: the suite's results
// ("memrel.results/1") cell by cell, and Google Benchmark JSON benchmark by benchmark. Byte
// figures are deterministic for a given allocator and workload, so they are compared exactly or
// within a small stated tolerance; latencies are noisy, so they fail only when a rank test over
// repetitions says the shift is real AND it is larger than a minimum change. Anything present in
// the baseline and absent now is listed as missing and fails the gate: a cell that stopped running
// must not pass as "no regression".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/results.hpp"

namespace memrel {

enum class Verdict { kOk, kImproved, kRegression, kInfo, kMissing, kNew, kSkipped };

// "ok", "improved", "REGRESSION", "info", "missing", "new", "skipped": the table's words.
const char* verdict_name(Verdict v);

// How far a byte figure may move before it counts: max(absolute, relative * |baseline|).
struct ByteTolerance {
  std::uint64_t absolute = 0;
  double relative = 0;
};

// Allocated and reserved as a device allocator reports them: its own bookkeeping, the same
// bytes for the same workload every run, so any growth is a real change in the allocator.
constexpr ByteTolerance kAllocatorBytesTolerance{0, 0.0};

// What the driver (cudaMemGetInfo) or the kernel (RSS) observes: device_used_delta, residual.
// The driver maps device memory in 2 MiB pages, so one granule of movement is not a change; the
// driver's own bookkeeping (page tables, lazily loaded modules) grows with the mapping, which the
// 1% covers on large figures. The same rule covers every byte figure of a host cell, whose
// allocated/reserved come from mallinfo2 and so include memrel's own heap as well.
constexpr ByteTolerance kObservedBytesTolerance{2ull << 20, 0.01};

// Byte counters of host-backend benchmarks: Google Benchmark picks iteration counts by time, so
// two runs replay a seeded churn a different number of times and leave glibc's heap laid out
// differently (seen: churn peak_reserved +2.5% between two H200 runs of one binary).
constexpr ByteTolerance kHostBenchmarkBytesTolerance{2ull << 20, 0.05};

// Release effectiveness is a ratio of two observed figures; 0.02 is the 2% of the observed
// tolerance, and a real release regression (a backend that stops returning memory) moves it by
// far more.
constexpr double kEffectivenessTolerance = 0.02;

// With 5 repetitions a side the exact two-sided p can fall to 2 / C(10, 5) = 0.008, well under
// the default alpha; with 4 it cannot go below 0.029 and with 3 below 0.1, so the test could
// never (or only just) pass judgement. Fewer than this is reported as info, not tested. Google
// Benchmark's compare.py warns below 9; more repetitions give the test more power.
constexpr std::size_t kMinRepetitions = 5;

constexpr double kDefaultLatencyMinChange = 0.10;  // relative change of the median
constexpr double kDefaultAlpha = 0.05;

// Google Benchmark counters that hold bytes, compared with the byte rules. max_bytes_used comes
// from the MemoryManager (the backend's peak reserved); the others are memrel_bench's own
// counters, all the allocator's reserved figure at some moment. The request size ("bytes",
// "peak_requested") is set by the benchmark itself, not by the allocator, and is not compared.
const std::vector<std::string>& benchmark_byte_counters();

struct CompareOptions {
  bool allow_different_device = false;
  std::optional<ByteTolerance> byte_tolerance;  // replaces both defaults for every byte figure
  double latency_min_change = kDefaultLatencyMinChange;
  double alpha = kDefaultAlpha;
  // Off: latencies are reported (with the test) as info and only bytes and status gate. For a
  // machine shared while it measures, where whole runs shift by more than any minimum change.
  bool gate_latency = true;
  // On (--normalize-drift): each latency is judged after dividing out the machine's drift, the
  // median current/baseline ratio over every benchmark compared. Between two leases of the same
  // H200 model, unchanged code moved by 2-3x as a whole (every backend, every size, no
  // improvements); one backend regressing alone still stands out against the others. A drift
  // that every backend shares (a driver change) is removed too: the report prints the factor.
  bool normalize_drift = false;
  double machine_drift = 1.0;  // set by compare_paths when normalize_drift is on
};

// "0" (exact), "4096", "2MiB", "1%", "2MiB,1%"; throws std::invalid_argument naming the option.
ByteTolerance parse_byte_tolerance(const std::string& text);

struct Row {
  std::string subject;  // "backend/workload", a benchmark name, or a file name
  std::string metric;
  std::string baseline, current, change;
  Verdict verdict = Verdict::kOk;
};

// One baseline file against its current counterpart (or against nothing, when one is absent).
struct FileComparison {
  std::string title;
  std::string baseline_path, current_path;
  std::vector<Row> rows;
};

struct Summary {
  std::size_t compared = 0;  // figures present on both sides (ok, improved, REGRESSION, info)
  std::size_t regressions = 0, improved = 0, info = 0, missing = 0, added = 0, skipped = 0;
};

struct Report {
  std::string baseline_path, current_path;
  std::vector<FileComparison> files;
  std::optional<double> machine_drift;  // with --normalize-drift: the factor divided out

  Summary summary() const;
  // 0 when nothing regressed and nothing went missing, else 1. (Unusable input never gets this
  // far: it throws, and the CLI exits 2.)
  int exit_code() const;
};

// One Google Benchmark result, the repetitions of one run_name gathered together.
struct BenchmarkSeries {
  std::string name;                    // run_name: "<operation>/<backend>/<mode>/<bytes>..."
  std::vector<double> real_time_ns;    // one per repetition (run_type "iteration")
  std::optional<double> aggregate_ns;  // the "median" aggregate, else the "mean"
  std::map<std::string, std::vector<double>> counters;  // byte counters, per repetition
  std::map<std::string, double> aggregate_counters;     // from the same aggregate
  std::string skipped;  // why it did not run (SkipWithError/SkipWithMessage)
};

struct BenchmarkRun {
  nlohmann::json context;
  std::vector<BenchmarkSeries> series;
};

// Google Benchmark's JSON ("context" + "benchmarks"); throws ResultsError.
BenchmarkRun benchmark_run_from_json(const nlohmann::json& j);
BenchmarkRun read_benchmark_file(const std::string& path);  // errors name the file

// The GPU a file says it ran on: context.gpu (results) or context.memrel_gpu (benchmarks), or
// empty when it records none.
std::optional<std::string> recorded_gpu(const nlohmann::json& context, bool benchmark_file);

FileComparison compare_runs(const RunResults& baseline, const RunResults& current,
                            const CompareOptions& options);
FileComparison compare_benchmark_runs(const BenchmarkRun& baseline, const BenchmarkRun& current,
                                      const CompareOptions& options);

// Files or folders (every same-named *.json in both). The kind of each file comes from its
// content. Throws ResultsError ("FILE: what") for unusable input: a missing, empty, malformed or
// unknown file, a file against a folder, files of different kinds, or different GPUs without
// options.allow_different_device.
Report compare_paths(const std::string& baseline, const std::string& current,
                     const CompareOptions& options);

std::string to_markdown(const Report& report, const CompareOptions& options);

}  // namespace memrel
