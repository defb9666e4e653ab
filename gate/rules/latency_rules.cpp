#include "gate/rules/latency_rules.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocators/backend_table.hpp"
#include "gate/format.hpp"
#include "gate/rules/byte_rules.hpp"
#include "gate/rules/mann_whitney.hpp"
#include "gate/rules/match_by_key.hpp"

namespace memrel {
namespace {

// Whether a benchmark's byte counters are device bookkeeping (exact) or process-wide host
// figures: memrel_bench records its backend's memory space in the context; for other files the
// backend comes from the name, "<operation>/<backend>/...", and its space from the backend table.
bool host_backend_benchmark(const nlohmann::json& context, const std::string& name) {
  if (context.is_object() && context.contains("memrel_memory_space") &&
      context["memrel_memory_space"].is_string()) {
    return context["memrel_memory_space"] == "host";
  }
  std::size_t first = name.find('/');
  if (first == std::string::npos) return false;
  std::size_t second = name.find('/', first + 1);
  std::string backend =
      name.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  for (const auto& b : all_backends()) {
    if (b.name == backend) return b.space == MemorySpace::kHost;
  }
  return false;  // torch plugins and unknown names: device backends, compared exactly
}

std::string describe_figure(const BenchmarkSeries& s) {
  if (!s.figure_ns) return "no figure";
  if (!s.real_time_ns.empty()) {
    return format::nanoseconds(*s.figure_ns) +
           (s.real_time_ns.size() == 1
                ? " (1 run)"
                : " (median of " + std::to_string(s.real_time_ns.size()) + ")");
  }
  return format::nanoseconds(*s.figure_ns) + " (aggregate)";
}

// A latency regression needs both a significant rank test and a median shift beyond the
// minimum change: significance alone flags shifts too small to matter, and the shift alone
// flags noise.
void compare_latency(std::vector<Row>& rows, const BenchmarkSeries& b, const BenchmarkSeries& c,
                     const CompareOptions& options) {
  const std::string metric = "real_time";
  const std::optional<double>& fb = b.figure_ns;
  const std::optional<double>& fc = c.figure_ns;
  if (!fb || !fc) {
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), "no time to compare",
            Verdict::kInfo);
    return;
  }
  const double drift = options.machine_drift;
  double change = *fb == 0 ? 0 : *fc / (*fb * drift) - 1;
  std::string change_text = format::relative_change(*fc - *fb, *fb);
  if (drift != 1.0 && !change_text.empty()) {
    change_text += format::printf_string(" (%+.1f%%", 100 * change) +
                   format::printf_string(" after machine drift x%.3g)", drift);
  }
  if (b.real_time_ns.size() < kMinRepetitions || c.real_time_ns.size() < kMinRepetitions) {
    std::string why = (b.real_time_ns.empty() || c.real_time_ns.empty())
                          ? "no repetitions in the file (aggregates only?): not tested"
                          : "too few repetitions (" + std::to_string(b.real_time_ns.size()) +
                                " and " + std::to_string(c.real_time_ns.size()) +
                                "; the test needs " + std::to_string(kMinRepetitions) +
                                " a side): not tested";
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c),
            (change_text.empty() ? "" : change_text + "; ") + why, Verdict::kInfo);
    return;
  }
  std::vector<double> expected = b.real_time_ns;  // the baseline as this machine would run it
  for (double& t : expected) t *= drift;
  MannWhitneyResult test = mann_whitney_u(expected, c.real_time_ns);
  bool significant = test.p_value < options.alpha;
  bool large = std::fabs(change) > options.latency_min_change;
  std::string text = change_text + ", " + format::p_value(test.p_value);
  if (!options.gate_latency) {
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c),
            text + "; not gated (" + options.latency_not_gated_because + ")", Verdict::kInfo);
    return;
  }
  Verdict v = Verdict::kOk;
  if (significant && large) v = change > 0 ? Verdict::kRegression : Verdict::kImproved;
  if (v == Verdict::kOk && large)
    text += format::printf_string(" (not significant at alpha %.3g)", options.alpha);
  if (v == Verdict::kOk && significant && !large) {
    text += format::printf_string(" (significant, within the %.0f%% minimum change)",
                                  100 * options.latency_min_change);
  }
  add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), text, v);
}

std::optional<std::int64_t> counter_figure(const BenchmarkSeries& s, const std::string& name) {
  auto it = s.counters.find(name);
  if (it == s.counters.end()) return std::nullopt;
  return std::llround(it->second);
}

void compare_series(std::vector<Row>& rows, const BenchmarkSeries& b, const BenchmarkSeries& c,
                    bool host, const CompareOptions& options) {
  if (!b.skipped.empty() || !c.skipped.empty()) {
    std::string bs = b.skipped.empty() ? "ran" : "skipped: " + b.skipped;
    std::string cs = c.skipped.empty() ? "ran" : "skipped: " + c.skipped;
    Verdict v = !c.skipped.empty() ? (b.skipped.empty() ? Verdict::kRegression : Verdict::kSkipped)
                                   : Verdict::kImproved;
    add_row(rows, b.name, "status", bs, cs, "not compared", v);
    return;
  }
  compare_latency(rows, b, c, options);
  ByteTolerance tolerance = byte_tolerance_for(ByteSource::kAllocator, host, options);
  if (host && !options.byte_tolerance) tolerance = kHostBenchmarkBytesTolerance;
  for (const auto& counter : benchmark_byte_counters()) {
    compare_bytes(rows, b.name, counter, counter_figure(b, counter), counter_figure(c, counter),
                  tolerance);
  }
}

}  // namespace

FileComparison compare_benchmark_runs(const BenchmarkRun& baseline, const BenchmarkRun& current,
                                      const CompareOptions& options) {
  FileComparison out;
  using Series = const BenchmarkSeries*;
  auto keyed = [](const BenchmarkRun& run) {
    std::vector<std::pair<std::string, Series>> series;
    for (const auto& s : run.series) series.emplace_back(s.name, &s);
    return series;
  };
  match_by_key<Series>(
      keyed(baseline), keyed(current),
      [&](const std::string&, const Series& b, const Series& c) {
        bool host = host_backend_benchmark(baseline.context, b->name) ||
                    host_backend_benchmark(current.context, c->name);
        compare_series(out.rows, *b, *c, host, options);
      },
      [&](const std::string& key, const Series& b) {
        add_row(out.rows, key, "benchmark", describe_figure(*b), "absent", "stopped running",
                Verdict::kMissing);
      },
      [&](const std::string& key, const Series& c) {
        add_row(out.rows, key, "benchmark", "absent", describe_figure(*c), "", Verdict::kNew);
      });
  return out;
}

}  // namespace memrel
