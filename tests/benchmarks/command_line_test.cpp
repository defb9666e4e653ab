#include "benchmarks/command_line.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace memrel::bench {
namespace {

BenchCommandLine parse(std::vector<std::string> args) {
  args.insert(args.begin(), "memrel_bench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v) {
    if (x == s) return true;
  }
  return false;
}

TEST(BenchCommandLine, OwnOptionsAreTakenAndTheRestPassedOnInOrder) {
  BenchCommandLine c = parse(
      {"--backend=host-malloc", "--benchmark_filter=pair", "--quick", "--benchmark_out=x.json"});
  EXPECT_EQ(c.backend, "host-malloc");
  EXPECT_TRUE(c.quick);
  EXPECT_EQ(c.benchmark_arguments,
            (std::vector<std::string>{"--benchmark_filter=pair", "--benchmark_out=x.json"}));
  EXPECT_EQ(parse({"--backend", "null"}).backend, "null");
}

TEST(BenchCommandLine, ABackendOptionWithoutAValueIsAUsageError) {
  EXPECT_THROW(parse({"--backend"}), UsageError);
}

TEST(BenchCommandLine, MemrelsRepetitionsUnlessTheUserChoseOwn) {
  unsetenv("BENCHMARK_REPETITIONS");
  unsetenv("BENCHMARK_MIN_TIME");
  MeasurementPlan plan;
  plan.repetitions = 7;
  auto ours = google_benchmark_arguments("memrel_bench", parse({"--backend=null"}), plan);
  EXPECT_EQ(ours.front(), "memrel_bench");
  EXPECT_TRUE(contains(ours, "--benchmark_repetitions=7"));
  auto theirs = google_benchmark_arguments(
      "memrel_bench", parse({"--backend=null", "--benchmark_repetitions=3"}), plan);
  EXPECT_FALSE(contains(theirs, "--benchmark_repetitions=7"));
  EXPECT_TRUE(contains(theirs, "--benchmark_repetitions=3"));
}

// `memrel bench --min-time` passes it on without knowing which Google Benchmark memrel_bench has:
// 1.8 wants the unit, 1.7.1 refuses it (benchmarks/CMakeLists.txt decides).
TEST(BenchCommandLine, MinTimeIsWrittenInThisBuildsFormAndReplacesMemrels) {
  unsetenv("BENCHMARK_MIN_TIME");
  MeasurementPlan plan;
  plan.min_time_seconds = 0.01;
  BenchCommandLine c = parse({"--backend=null", "--min-time", "0.002"});
  EXPECT_DOUBLE_EQ(c.min_time_seconds, 0.002);
  EXPECT_TRUE(c.benchmark_arguments.empty());
  auto args = google_benchmark_arguments("memrel_bench", c, plan);
#ifdef MEMREL_BENCHMARK_MIN_TIME_HAS_UNIT
  EXPECT_TRUE(contains(args, "--benchmark_min_time=0.002s"));
  EXPECT_FALSE(contains(args, "--benchmark_min_time=0.01s"));
#else
  EXPECT_TRUE(contains(args, "--benchmark_min_time=0.002"));
  EXPECT_FALSE(contains(args, "--benchmark_min_time=0.01"));
#endif
  EXPECT_DOUBLE_EQ(parse({"--min-time=1.5"}).min_time_seconds, 1.5);
}

TEST(BenchCommandLine, AMinTimeThatIsNotAPositiveNumberIsAUsageError) {
  for (const char* bad : {"0", "-1", "x", "", "1s", "nan", "1e9"}) {
    EXPECT_THROW(parse({"--min-time", bad}), UsageError) << bad;
  }
  EXPECT_THROW(parse({"--min-time"}), UsageError);
}

TEST(BenchCommandLine, AFlagsValueIsTheLastOneGiven) {
  BenchCommandLine c = parse({"--benchmark_out=a.json", "--benchmark_out=b.json"});
  EXPECT_EQ(google_benchmark_flag(c, "benchmark_out", ""), "b.json");
  EXPECT_EQ(google_benchmark_flag(c, "benchmark_format", "console"), "console");
}

}  // namespace
}  // namespace memrel::bench
