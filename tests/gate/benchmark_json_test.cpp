// The one Google Benchmark reading rule (docs/benchmark-json.md), proven on the fixture that the
// Python report's tests read too (tests/python/test_gbench_reading.py): both readers must give
// exactly tests/data/gbench-reading/expected.json for input.json.
#include "gate/read/benchmark_json.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/results/results.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

const std::string kFixture = std::string(MEMREL_TEST_DATA) + "/gbench-reading";

void expect_close(double got, double want, const std::string& what) {
  EXPECT_LE(std::fabs(got - want), 1e-12 * std::max(1.0, std::fabs(want)))
      << what << ": got " << got << ", want " << want;
}

TEST(BenchmarkJson, TheSharedFixtureReadsAsExpected) {
  BenchmarkRun run = read_benchmark_file(kFixture + "/input.json");
  nlohmann::json expected = read_json_file(kFixture + "/expected.json");
  ASSERT_EQ(expected["rule"], "memrel.gbench-reading/1");
  const auto& want = expected["series"];
  ASSERT_EQ(run.series.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const BenchmarkSeries& s = run.series[i];
    const auto& w = want[i];
    const std::string name = w["name"].get<std::string>();
    SCOPED_TRACE(name);
    EXPECT_EQ(s.name, name);
    EXPECT_EQ(s.skipped, w["skipped"].is_null() ? "" : w["skipped"].get<std::string>());
    EXPECT_EQ(s.real_time_ns.size(), w["repetitions"].get<std::size_t>());
    EXPECT_EQ(s.source, w["source"].is_null() ? "" : w["source"].get<std::string>());
    ASSERT_EQ(s.figure_ns.has_value(), !w["figure_ns"].is_null());
    if (s.figure_ns) expect_close(*s.figure_ns, w["figure_ns"].get<double>(), "figure_ns");
    ASSERT_EQ(s.counters.size(), w["counters"].size());
    for (const auto& [counter, value] : w["counters"].items()) {
      auto it = s.counters.find(counter);
      ASSERT_NE(it, s.counters.end()) << counter;
      expect_close(it->second, value.get<double>(), counter);
    }
  }
}

TEST(BenchmarkJson, AnUnknownTimeUnitNamesTheEntry) {
  nlohmann::json doc = {{"context", nlohmann::json::object()},
                        {"benchmarks",
                         {{{"name", "pair/null/warm/512"},
                           {"run_type", "iteration"},
                           {"real_time", 1.0},
                           {"time_unit", "fortnights"}}}}};
  try {
    benchmark_run_from_json(doc);
    ADD_FAILURE();
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()),
              "benchmarks[0] (pair/null/warm/512): unknown time_unit \"fortnights\"");
  }
}

TEST(BenchmarkJson, AnEntryThatRanNeedsARealTime) {
  nlohmann::json doc = {{"context", nlohmann::json::object()},
                        {"benchmarks", {{{"name", "pair/null/warm/512"}}}}};
  EXPECT_THROW(benchmark_run_from_json(doc), ResultsError);
  // A skipped entry has nothing to time.
  doc["benchmarks"][0]["error_occurred"] = true;
  doc["benchmarks"][0]["error_message"] = "no device";
  EXPECT_EQ(benchmark_run_from_json(doc).series.at(0).skipped, "no device");
}

// Every series twice, told apart by the numbers Google Benchmark writes: a repetitions or an
// index spelled or valued otherwise (-3, 4.5, "3", 0.0, -1, past repetitions) switched the
// duplicate check off and read the series as "median of 6" (the thirty-first adversarial pass).
TEST(BenchmarkJson, RepetitionNumbersAreWholeAndInRange) {
  auto doc_with = [](const nlohmann::json& repetitions, const nlohmann::json& index) {
    nlohmann::json entry = {{"name", "pair/null/warm/512"},
                            {"run_name", "pair/null/warm/512"},
                            {"run_type", "iteration"},
                            {"real_time", 1.0},
                            {"time_unit", "ns"}};
    if (!repetitions.is_null()) entry["repetitions"] = repetitions;
    if (!index.is_null()) entry["repetition_index"] = index;
    return nlohmann::json{{"context", nlohmann::json::object()}, {"benchmarks", {entry}}};
  };
  EXPECT_NO_THROW(benchmark_run_from_json(doc_with(3, 2)));
  EXPECT_NO_THROW(benchmark_run_from_json(doc_with(nullptr, nullptr)));  // before 1.5
  for (const nlohmann::json& repetitions :
       {nlohmann::json(-3), nlohmann::json(4.5), nlohmann::json("3"), nlohmann::json(0),
        nlohmann::json(3.0), nlohmann::json(1ULL << 31)})
    EXPECT_THROW(benchmark_run_from_json(doc_with(repetitions, 0)), ResultsError)
        << repetitions.dump();
  for (const nlohmann::json& index :
       {nlohmann::json(-1), nlohmann::json(0.0), nlohmann::json("0"), nlohmann::json(3)})
    EXPECT_THROW(benchmark_run_from_json(doc_with(3, index)), ResultsError) << index.dump();
}

}  // namespace
}  // namespace memrel
