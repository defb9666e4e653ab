// The latency gate decides significance over a file's tests together (Benjamini-Hochberg,
// gate/rules/latency_rules.cpp): chance "regressions" of an A/A run are not reported, a real
// slowdown across many figures is.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gate/compare_options.hpp"
#include "gate/rules/latency_rules.hpp"

namespace memrel {
namespace {

BenchmarkSeries series(const std::string& name, std::vector<double> times) {
  BenchmarkSeries s;
  s.name = name;
  s.real_time_ns = times;
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  s.figure_ns = sorted[sorted.size() / 2];
  s.source = "median of " + std::to_string(times.size());
  return s;
}

int count(const FileComparison& f, Verdict v) {
  int n = 0;
  for (const Row& r : f.rows) n += r.verdict == v;
  return n;
}

// 40 figures alike on both sides, and one whose five runs all came out slower: its p (0.0079,
// the smallest five against five can give) would pass alpha = 0.05 alone, but not as 1 of 41.
TEST(FalseDiscoveryRate, OneChanceShiftAmongManyFiguresIsNotARegression) {
  BenchmarkRun baseline, current;
  for (int i = 0; i < 40; ++i) {
    const std::string name = "pair/x/warm/" + std::to_string(i);
    baseline.series.push_back(series(name, {100, 102, 104, 106, 108}));
    current.series.push_back(series(name, {101, 103, 105, 107, 109}));
  }
  baseline.series.push_back(series("pair/x/cold/0", {100, 101, 102, 103, 104}));
  current.series.push_back(series("pair/x/cold/0", {140, 141, 142, 143, 144}));
  CompareOptions options;
  FileComparison f = compare_benchmark_runs(baseline, current, options);
  EXPECT_EQ(count(f, Verdict::kRegression), 0);
  bool explained = false;
  for (const Row& r : f.rows) {
    explained |=
        r.subject == "pair/x/cold/0" && r.reason.find("false discovery rate") != std::string::npos;
  }
  EXPECT_TRUE(explained);
  // Alone, the same figure is a regression: the procedure is the plain test for one figure.
  BenchmarkRun b1, c1;
  b1.series.push_back(baseline.series.back());
  c1.series.push_back(current.series.back());
  EXPECT_EQ(count(compare_benchmark_runs(b1, c1, options), Verdict::kRegression), 1);
}

// A real slowdown moves many figures at once, each at the smallest p: all of them are reported.
TEST(FalseDiscoveryRate, ASlowdownAcrossManyFiguresIsReportedWhole) {
  BenchmarkRun baseline, current;
  for (int i = 0; i < 40; ++i) {
    const std::string name = "pair/x/warm/" + std::to_string(i);
    baseline.series.push_back(series(name, {100, 102, 104, 106, 108}));
    const bool slowed = i < 8;
    current.series.push_back(slowed ? series(name, {300, 302, 304, 306, 308})
                                    : series(name, {101, 103, 105, 107, 109}));
  }
  FileComparison f = compare_benchmark_runs(baseline, current, CompareOptions{});
  EXPECT_EQ(count(f, Verdict::kRegression), 8);
}

}  // namespace
}  // namespace memrel
