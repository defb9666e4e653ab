// Google Benchmark's JSON (`--benchmark_out_format=json`), read by memrel's one reading rule,
// "memrel.gbench-reading/1" (docs/benchmark-json.md): which entries count, which time is a
// benchmark's figure, which value is a counter's. The Python report
// (scripts/memrel_report/gbench.py) implements the same rule; both test suites read the fixture
// tests/data/gbench-reading/ and must agree with its expected.json.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memrel {

// The counters that hold bytes: compared with the byte rules, and read by the byte rule below.
// max_bytes_used comes from the MemoryManager (the backend's peak reserved); the others are
// memrel_bench's own counters, all the allocator's reserved figure at some moment. The request
// size ("bytes", "peak_requested") is set by the benchmark itself and is not one of them.
const std::vector<std::string>& benchmark_byte_counters();

// One benchmark: the entries of one run_name gathered together.
struct BenchmarkSeries {
  std::string name;                  // run_name: "<operation>/<backend>/<mode>/<bytes>..."
  std::vector<double> real_time_ns;  // the iteration entries' real_time, one per repetition
  // The median of real_time_ns; without repetitions, the median aggregate, else the mean one.
  std::optional<double> figure_ns;
  std::string source;  // "median of N", "median aggregate", "mean aggregate", or empty
  // Every user counter: byte counters rounded to whole bytes (max_bytes_used the last
  // repetition's, the others the value most repetitions share, else the median); the rest the
  // median of the repetitions. Without repetitions, from the aggregate the figure came from.
  std::map<std::string, double> counters;
  std::string skipped;  // why it did not run (SkipWithError/SkipWithMessage); then no figure
};

struct BenchmarkRun {
  nlohmann::json context;
  std::vector<BenchmarkSeries> series;  // in the order their first entry appears
};

// Throws ResultsError ("benchmarks[i] (NAME): what") for input the rule cannot read.
BenchmarkRun benchmark_run_from_json(const nlohmann::json& j);
BenchmarkRun read_benchmark_file(const std::string& path);  // errors name the file

}  // namespace memrel
