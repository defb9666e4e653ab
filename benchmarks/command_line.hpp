// memrel_bench's own options, and the arguments it hands on to Google Benchmark.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "benchmarks/measurement_rules.hpp"

namespace memrel::bench {

// benchmarks/backends of the source tree, where `memrel` looks for backend files too.
std::string default_backends_dir();

// A command line memrel_bench cannot run: exit code 2, the message on one line.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BenchCommandLine {
  std::string backend;  // a compiled backend's name, a backend file's name or its path
  std::string backends_dir = default_backends_dir();
  bool quick = false;
  // --min-time SECONDS: Google Benchmark's minimum time, written in the form this build's Google
  // Benchmark reads (with or without the unit), so that a caller need not know which; 0: unset.
  double min_time_seconds = 0;
  bool help = false;
  bool list_backends = false;
  // Everything that is not memrel_bench's, in order, for Google Benchmark to parse (and refuse).
  std::vector<std::string> benchmark_arguments;
};

// --backend NAME or --backend=NAME, --backends-dir DIR, --quick, --min-time SECONDS,
// --list-backends, --help or -h. Throws UsageError.
BenchCommandLine parse_command_line(int argc, char** argv);

// The argv for benchmark::Initialize: the program, then --min-time's minimum time, else memrel's
// own unless the user chose one, and memrel's repetitions unless the user chose their own (by flag
// or by Google Benchmark's BENCHMARK_MIN_TIME / BENCHMARK_REPETITIONS variables), then the user's
// arguments. Set as flags rather than through Benchmark::MinTime(), which would add
// "/min_time:0.010" to every name.
std::vector<std::string> google_benchmark_arguments(const std::string& program,
                                                    const BenchCommandLine& command_line,
                                                    const MeasurementPlan& plan);

// The value Google Benchmark will use for `flag` (e.g. "benchmark_out"): the last --flag=VALUE,
// else its environment variable, else `fallback`.
std::string google_benchmark_flag(const BenchCommandLine& command_line, const std::string& flag,
                                  const std::string& fallback);

}  // namespace memrel::bench
