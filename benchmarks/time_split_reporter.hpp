// Where a memrel_bench process's time goes (issue 25): its start (the CUDA context, the backend's
// init, a framework's loading among them) and, per operation and mode, the benchmarks' wall time
// against the time they measured. What is not measured is Google Benchmark's iteration growth,
// the MemoryManager's extra run of every repetition, and each benchmark's untimed work (a release
// before every cold sample, the untimed replay before a warm churn). The JSON it writes is
// FiniteJsonReporter's, unchanged (a subclass, not a wrapper: Google Benchmark points the file
// reporter's stream at --benchmark_out itself); the split goes to stderr at the end (memrel bench
// --logs keeps it in bench-<backend>.log).
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "benchmarks/finite_json_reporter.hpp"

namespace memrel::bench {

class TimeSplitReporter final : public FiniteJsonReporter {
 public:
  using Clock = std::chrono::steady_clock;

  bool ReportContext(const Context& context) override {
    last_ = Clock::now();
    return FiniteJsonReporter::ReportContext(context);
  }

  void ReportRuns(const std::vector<Run>& reports) override {
    const Clock::time_point now = Clock::now();
    Part& part = parts_[operation_and_mode(reports)];
    part.wall += std::chrono::duration<double>(now - last_).count();
    last_ = now;
    ++part.benchmarks;
    for (const Run& run : reports) {
      if (run.run_type == Run::RT_Iteration) part.timed += run.real_accumulated_time;
    }
    FiniteJsonReporter::ReportRuns(reports);
  }

  // "time split: start 0.61 s (CUDA context 0.22 s, backend init 0.39 s); benchmarks 14.2 s, of
  // which measured 3.1 s; pair/warm: 30 benchmarks, 2.0 s, measured 0.9 s; ..."
  std::string summary(double start_seconds, double context_seconds,
                      double backend_init_seconds) const {
    double wall = 0, timed = 0;
    for (const auto& [name, part] : parts_) {
      wall += part.wall;
      timed += part.timed;
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "time split: start %.2f s (CUDA context %.2f s, backend init %.2f s); "
                  "benchmarks %.2f s, of which measured %.2f s",
                  start_seconds, context_seconds, backend_init_seconds, wall, timed);
    std::string out = line;
    for (const auto& [name, part] : parts_) {
      std::snprintf(line, sizeof line, "; %s: %zu, %.2f s, measured %.2f s", name.c_str(),
                    part.benchmarks, part.wall, part.timed);
      out += line;
    }
    return out;
  }

 private:
  struct Part {
    std::size_t benchmarks = 0;
    double wall = 0, timed = 0;
  };

  // "pair/warm" from "pair/cuda-malloc/warm/4096/manual_time": fields 1 and 3 of the name.
  static std::string operation_and_mode(const std::vector<Run>& reports) {
    if (reports.empty()) return "?";
    const std::string name = reports.front().run_name.str();
    std::vector<std::string> fields;
    for (std::size_t at = 0;;) {
      std::size_t slash = name.find('/', at);
      fields.push_back(name.substr(at, slash - at));
      if (slash == std::string::npos) break;
      at = slash + 1;
    }
    return fields.size() >= 3 ? fields[0] + "/" + fields[2] : fields[0];
  }

  Clock::time_point last_ = Clock::now();
  std::map<std::string, Part> parts_;
};

}  // namespace memrel::bench
