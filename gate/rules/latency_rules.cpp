#include "gate/rules/latency_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "allocators/backend_table.hpp"
#include "gate/format.hpp"
#include "gate/rules/byte_rules.hpp"
#include "gate/rules/family_rules.hpp"
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

// A rank test whose verdict waits for the others of the same file (apply_false_discovery_rate).
struct PendingTest {
  std::size_t row;
  double p_value, change;
  bool large;
  bool family = false;  // a family's paired test (weighted apart: weigh_families)
  double weight = 1;    // its weight in the false discovery rate (1: the plain procedure)
};

// A latency regression needs both a significant rank test and a median shift beyond the
// minimum change: significance alone flags shifts too small to matter, and the shift alone
// flags noise. Significance is decided over all of a file's tests together (below).
void compare_latency(std::vector<Row>& rows, const BenchmarkSeries& b, const BenchmarkSeries& c,
                     const CompareOptions& options, std::vector<PendingTest>& tests) {
  const std::string metric = "real_time";
  const std::optional<double>& fb = b.figure_ns;
  const std::optional<double>& fc = c.figure_ns;
  if (!fb || !fc) {
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), "", Verdict::kInfo,
            "no time to compare");
    return;
  }
  const double drift = options.machine_drift;
  // In logs: the product of a tiny time and the drift underflowed to 0 and the change to inf.
  const double log_change =
      *fb > 0 && *fc > 0 ? std::log(*fc) - std::log(*fb) - std::log(drift) : 0;
  double change = *fb == 0 ? 0 : *fc == 0 ? -1 : std::expm1(log_change);
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
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), change_text,
            Verdict::kInfo, why);
    return;
  }
  std::vector<double> expected = b.real_time_ns;  // the baseline as this machine would run it
  for (double& t : expected) t *= drift;
  MannWhitneyResult test = mann_whitney_u(expected, c.real_time_ns);
  if (options.drift_spread && *fb > 0 && *fc > 0) {
    // Two separate runs, --normalize-drift: the shift must also stand out from how unevenly
    // the machine moved the benchmarks between the runs (the spread of their log ratios). The
    // two conditions together are an intersection-union test, whose p is the larger of the two.
    const double z = log_change / std::max(*options.drift_spread, 1e-12);
    const double p_drift = std::erfc(std::fabs(z) / std::sqrt(2.0));
    test.p_value = std::max(test.p_value, p_drift);
    change_text +=
        format::printf_string(" (%.1f spreads of the drift between the runs)", std::fabs(z));
  }
  bool large = std::fabs(change) > options.latency_min_change;
  if (!options.gate_latency) {
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), change_text,
            Verdict::kInfo, "not gated (" + options.latency_not_gated_because + ")", test.p_value);
    return;
  }
  tests.push_back({rows.size(), test.p_value, change, large});
  add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), change_text, Verdict::kOk,
          "", test.p_value);
}

// A file holds tens to hundreds of timed figures, each tested at alpha: between two runs of the
// same build on one machine (an A/A), about alpha of them would come out "significant" by chance
// (seen on the H200: 1 of 80 at p = 0.032). The Benjamini-Hochberg procedure keeps the expected
// share of false regressions among those reported at alpha instead: the tests sorted by p, the
// largest k with p(k) <= k / m * alpha, and every test up to it is significant. With one test
// it is the plain alpha test; a real slowdown, which moves many figures at the test's smallest
// p, still passes it.
// A slowdown of at least half the minimum change whose test is not significant is "undecided"
// (for ab's further looks) while its false-discovery-adjusted p (the smallest alpha at which
// Benjamini-Hochberg would call it significant) is at most this. Adjusted, so that the chance an
// A/A run goes on does not grow with the number of figures: under no change at all, some
// adjusted p falls below q with a chance of about q however many tests a file holds, and only
// the slower half of those count (a plain p <= 0.25 on any of ~90 benchmarks would send nearly
// every quiet night to the last look). 0.75 rather than 0.5: on synthetic rounds a planted +10 %
// was found in 108 rather than 92 of 200 runs, for 13.8 rather than 11.8 rounds an A/A run
// (tests/gate/sequential_looks_test.cpp, before the families were weighted). Half the minimum
// change: a slowdown of exactly the minimum is estimated below it about half the time after few
// rounds.
constexpr double kUndecidedBelowAdjustedP = 0.75;

// Benjamini-Hochberg adjusted p-values, in the order of `p`: min over j >= rank of p(j) m / j.
std::vector<double> adjusted_p_values(const std::vector<double>& p) {
  std::vector<std::size_t> order(p.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running = 1.0;
  for (std::size_t k = order.size(); k-- > 0;) {
    running =
        std::min(running, p[order[k]] * static_cast<double>(p.size()) / static_cast<double>(k + 1));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

// The halves of one ab run: half the false discovery rate's weight to the families' paired
// tests, half to the benchmarks' own (weights averaging 1: Genovese, Roeder and Wasserman's
// weighted Benjamini-Hochberg, which keeps the rate at alpha). Unweighted, 3 families among 15
// tests got a fifth of it: on the CPU, a planted +10 % moved two families by 17-18 % at p =
// 0.002-0.003 over 30 rounds and was not reported, while the benchmarks' own tests, which cannot
// pair the rounds, flagged none of their 12 sizes (docs/ab.md). A slowdown of one size alone
// still has the benchmarks' half.
void weigh_families(std::vector<PendingTest>& tests) {
  double families = 0;
  for (const auto& t : tests) families += t.family;
  const double all = static_cast<double>(tests.size()), others = all - families;
  if (families == 0 || others == 0) return;
  for (auto& t : tests) t.weight = t.family ? all / (2 * families) : all / (2 * others);
}

void apply_false_discovery_rate(std::vector<Row>& rows, const std::vector<PendingTest>& tests,
                                const CompareOptions& options) {
  // Each test's p over its weight, as weighted BH compares them.
  std::vector<double> raw;
  for (const auto& t : tests) raw.push_back(t.p_value / t.weight);
  std::vector<double> sorted = raw;
  std::sort(sorted.begin(), sorted.end());
  const double m = static_cast<double>(sorted.size());
  double threshold = -1;  // no test is significant
  for (std::size_t k = 1; k <= sorted.size(); ++k) {
    if (sorted[k - 1] <= static_cast<double>(k) / m * options.alpha) threshold = sorted[k - 1];
  }
  const std::vector<double> adjusted = adjusted_p_values(raw);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const PendingTest& t = tests[i];
    Row& row = rows[t.row];
    const bool significant = raw[i] <= threshold;
    row.undecided = !significant && t.change > options.latency_min_change / 2 &&
                    adjusted[i] <= kUndecidedBelowAdjustedP;
    if (significant && t.large) {
      row.verdict = t.change > 0 ? Verdict::kRegression : Verdict::kImproved;
    } else if (t.large && t.p_value < options.alpha) {
      row.reason = "not significant over the file's " + std::to_string(tests.size()) +
                   format::printf_string(" tests at false discovery rate %.3g", options.alpha);
    } else if (t.large) {
      row.reason = format::printf_string("not significant at alpha %.3g", options.alpha);
    } else if (significant) {
      row.reason = format::printf_string("significant, within the %.0f%% minimum change",
                                         100 * options.latency_min_change);
    }
  }
}

// The halves of one `memrel ab` run: one row per family of sizes, its rounds paired
// (gate/rules/family_rules.hpp). Its test joins the file's others in the false discovery rate, so
// adding the families cannot raise the share of false regressions reported.
void compare_families(std::vector<Row>& rows, const std::vector<MatchedSeries>& matched,
                      const CompareOptions& options, std::vector<PendingTest>& tests) {
  const std::string metric = "real_time (family, rounds paired)";
  for (const FamilyFinding& f : paired_family_tests(matched, options.alpha)) {
    const std::string subject = f.family + "/*";
    const std::string sizes = std::to_string(f.sizes) + " sizes";
    const std::string rounds = f.rounds ? std::to_string(f.rounds) + " rounds, median ratio " +
                                              format::printf_string("x%.3f", 1 + f.change)
                                        : "";
    const std::string change = f.rounds ? format::printf_string("%+.1f%%", 100 * f.change) : "";
    if (!f.p_value) {
      add_row(rows, subject, metric, sizes, rounds, change, Verdict::kInfo, f.untested_because);
      // Too few rounds for this alpha (a look's share of it): a slowdown there is undecided.
      rows.back().undecided =
          options.gate_latency && f.needs_more_rounds && f.change > options.latency_min_change / 2;
      continue;
    }
    if (!options.gate_latency) {
      add_row(rows, subject, metric, sizes, rounds, change, Verdict::kInfo,
              "not gated (" + options.latency_not_gated_because + ")", f.p_value);
      continue;
    }
    tests.push_back({rows.size(), *f.p_value, f.change,
                     std::fabs(f.change) > options.latency_min_change, true});
    add_row(rows, subject, metric, sizes, rounds, change, Verdict::kOk, "", f.p_value);
  }
}

std::optional<std::int64_t> counter_figure(const BenchmarkSeries& s, const std::string& name) {
  auto it = s.counters.find(name);
  if (it == s.counters.end()) return std::nullopt;
  return std::llround(it->second);
}

void compare_series(std::vector<Row>& rows, const BenchmarkSeries& b, const BenchmarkSeries& c,
                    bool host, const CompareOptions& options, std::vector<PendingTest>& tests) {
  if (!b.skipped.empty() || !c.skipped.empty()) {
    std::string bs = b.skipped.empty() ? "ran" : "skipped: " + b.skipped;
    std::string cs = c.skipped.empty() ? "ran" : "skipped: " + c.skipped;
    Verdict v = !c.skipped.empty() ? (b.skipped.empty() ? Verdict::kRegression : Verdict::kSkipped)
                                   : Verdict::kImproved;
    add_row(rows, b.name, "status", bs, cs, "", v, "not compared");
    return;
  }
  compare_latency(rows, b, c, options, tests);
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
  std::vector<PendingTest> tests;
  std::vector<MatchedSeries> matched;
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
        compare_series(out.rows, *b, *c, host, options, tests);
        matched.push_back({b, c});
      },
      [&](const std::string& key, const Series& b) {
        add_row(out.rows, key, "benchmark", describe_figure(*b), "absent", "", Verdict::kMissing,
                "stopped running");
      },
      [&](const std::string& key, const Series& c) {
        add_row(out.rows, key, "benchmark", "absent", describe_figure(*c), "", Verdict::kNew);
      });
  // Rounds pair up only between the halves of one ab run: round r of each side ran back to back.
  if (options.interleaved) compare_families(out.rows, matched, options, tests);
  weigh_families(tests);
  apply_false_discovery_rate(out.rows, tests, options);
  return out;
}

}  // namespace memrel
