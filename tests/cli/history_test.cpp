// memrel history end to end: runs added to an SQLite database show a metric over time, per
// machine; Apache Otava finds the one step in a synthetic history and none in a flat one; bad
// input changes nothing. About 2 s, most of it Otava's import.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "test_support.hpp"

namespace {

using memrel::testing::memrel_command;
using memrel::testing::run_command;
using memrel::testing::TempDir;
using memrel::testing::write_text;

const std::string kPair = "pair/host-malloc/warm/4096";

// A memrel_bench file of one night: `values` maps a benchmark to its 5 repetitions (ns).
std::string bench_json(int night, const std::vector<std::pair<std::string, double>>& values,
                       const std::string& commit) {
  nlohmann::json fingerprint = {{"gpu_model", nullptr},
                                {"gpu_uuid", nullptr},
                                {"driver_version", nullptr},
                                {"cuda_driver_version", nullptr},
                                {"cuda_runtime_version", nullptr},
                                {"cpu_model", "Test CPU"},
                                {"host", "ci-1"},
                                {"memrel_commit", commit},
                                {"runtime_versions", nlohmann::json::object()}};
  char date[32];
  std::snprintf(date, sizeof date, "2026-11-%02dT02:00:00Z", night);
  nlohmann::json j = {{"context", {{"date", date}, {"memrel_fingerprint", fingerprint.dump()}}},
                      {"benchmarks", nlohmann::json::array()}};
  for (const auto& [name, ns] : values) {
    for (int rep = 0; rep < 5; ++rep) {
      j["benchmarks"].push_back({{"name", name},
                                 {"run_name", name},
                                 {"run_type", "iteration"},
                                 {"repetitions", 5},
                                 {"repetition_index", rep},
                                 {"threads", 1},
                                 {"iterations", 100},
                                 {"real_time", ns},
                                 {"cpu_time", ns},
                                 {"time_unit", "ns"},
                                 {"reserved", 4096}});
    }
  }
  return j.dump();
}

std::string history(const TempDir& dir, const std::string& args) {
  return memrel_command("history --db '" + dir.file("h.sqlite") + "' " + args);
}

TEST(HistoryCommand, ThreeRunsShowATrend) {
  TempDir dir;
  std::string files;
  for (int night = 1; night <= 3; ++night) {
    std::string f = dir.file("night" + std::to_string(night) + ".json");
    write_text(
        f, bench_json(night, {{kPair, 1000.0 + 100 * (night - 1)}}, "c" + std::to_string(night)));
    files += " '" + f + "'";
  }
  auto add = run_command(history(dir, "add" + files));
  ASSERT_EQ(add.exit_code, 0) << add.output;
  EXPECT_NE(add.output.find("run 3, 2 figures"), std::string::npos) << add.output;

  auto show = run_command(history(dir, "show " + kPair + ":real_time_ns"));
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find("3 runs"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("| 2 | 2026-11-02T02:00:00Z | c2 | 1100 ns | +10.0% |"),
            std::string::npos)
      << show.output;
  EXPECT_NE(show.output.find("Trend: 1000 ns -> 1200 ns (+20.0% over 3 runs)"), std::string::npos)
      << show.output;
  // Byte counters with their unit, not "4096" (nor 3.19301e+08 for larger ones).
  auto bytes = run_command(history(dir, "show " + kPair + ":reserved"));
  ASSERT_EQ(bytes.exit_code, 0) << bytes.output;
  EXPECT_NE(bytes.output.find("| 4096 B |"), std::string::npos) << bytes.output;

  // The same file again is not a new run; a results file adds its cells' figures.
  auto again = run_command(history(dir, "add '" + dir.file("night1.json") + "' '" +
                                            std::string(MEMREL_TEST_DATA) + "/host-run.json'"));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("night1.json: already in the history"), std::string::npos);
  auto list = run_command(history(dir, "list del-without-release"));
  EXPECT_NE(list.output.find("host-malloc/del-without-release:peak_reserved\t1"), std::string::npos)
      << list.output;
}

TEST(HistoryCommand, BadInputChangesNothing) {
  TempDir dir;
  std::string good = dir.file("good.json"), bad = dir.file("bad.json");
  write_text(good, bench_json(1, {{kPair, 1000}}, "c1"));
  write_text(bad, "{\"benchmarks\": [");
  auto r = run_command(history(dir, "add '" + good + "' '" + bad + "'"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
  auto show = run_command(history(dir, "show " + kPair + ":real_time_ns"));
  EXPECT_EQ(show.exit_code, 2) << show.output;  // no database was made
  ASSERT_EQ(run_command(history(dir, "add '" + good + "'")).exit_code, 0);
  auto unknown = run_command(history(dir, "show no/such:metric"));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("no/such:metric: not in the history"), std::string::npos);
  write_text(dir.file("not-a-db.sqlite"), "hello");
  auto not_db =
      run_command(memrel_command("history --db '" + dir.file("not-a-db.sqlite") + "' list"));
  EXPECT_EQ(not_db.exit_code, 2) << not_db.output;
}

TEST(HistoryCommand, ChangePointsOnAStepAndNoneOnAFlatHistory) {
  TempDir dir;
  // 20 nights of two benchmarks with 1% noise: one flat at 1 us, one stepping to 1.3 us at
  // night 11 (a regression that came in with commit c11).
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> noise(0.99, 1.01);
  std::string files;
  for (int night = 1; night <= 20; ++night) {
    std::string f = dir.file("night" + std::to_string(night) + ".json");
    write_text(f, bench_json(night,
                             {{"pair/flat/warm/4096", 1000 * noise(rng)},
                              {"pair/step/warm/4096", (night >= 11 ? 1300 : 1000) * noise(rng)}},
                             "c" + std::to_string(night)));
    files += " '" + f + "'";
  }
  ASSERT_EQ(run_command(history(dir, "add" + files)).exit_code, 0);
  auto r = run_command(history(dir, "changes --match real_time_ns"));
  // scripts/install-deps installs Apache Otava; the GPU machine, which cannot, says so (exit 4).
  if (r.exit_code == 4 && r.output.find("Otava is not importable") != std::string::npos)
    GTEST_SKIP() << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| pair/step/warm/4096:real_time_ns |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| 11 | 2026-11-11T02:00:00Z | c11 |"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pair/flat/"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Change points: 1 in 2 series"), std::string::npos) << r.output;
}

}  // namespace
