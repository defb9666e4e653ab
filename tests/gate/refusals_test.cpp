// The gate refuses what it cannot judge (exit 2, never a PASS): a cell or benchmark twice in one
// file, impossible values (negative times or bytes, figures beyond 2^53), a file of both kinds.
#include <gtest/gtest.h>

#include "gate/compare.hpp"
#include "gate/rules/byte_rules.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

using memrel::testing::memrel_command;
using memrel::testing::read_text;
using memrel::testing::run_command;
using memrel::testing::TempDir;
using memrel::testing::write_text;
using nlohmann::json;

const std::string kHostRun = std::string(MEMREL_TEST_DATA) + "/host-run.json";

json host_run() { return json::parse(read_text(kHostRun)); }

json& first_ok_cell(json& run) {
  for (auto& c : run["cells"]) {
    if (c["status"] == "ok") return c;
  }
  throw std::logic_error("no ok cell in host-run.json");
}

// compare_paths' ResultsError text for BASELINE against CURRENT, or "" when it compared.
std::string refusal(const json& baseline, const json& current, std::string* current_path = nullptr,
                    const std::string& text_override = "") {
  TempDir dir;
  const std::string b = dir.file("baseline.json"), c = dir.file("current.json");
  write_text(b, baseline.dump());
  write_text(c, text_override.empty() ? current.dump() : text_override);
  if (current_path) *current_path = c;
  try {
    compare_paths(b, c, {});
  } catch (const ResultsError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_TRUE(what.rfind(c + ": ", 0) == 0 || what.rfind(b + ": ", 0) == 0)
        << "names the file: " << what;
    return what;
  }
  return "";
}

TEST(GateRefuses, TheSameCellTwiceOneOkOneCrashed) {
  json base = host_run();
  json cur = base;
  json crashed = first_ok_cell(cur);
  crashed["status"] = "crashed";
  crashed["reason"] = "signal 11";
  cur["cells"].push_back(crashed);  // the ok copy comes first: it alone would be judged, PASS
  std::string what = refusal(base, cur);
  EXPECT_NE(what.find("is also cells[0]: a cell twice in one file cannot be judged"),
            std::string::npos)
      << what;
  EXPECT_FALSE(refusal(cur, base).empty()) << "a baseline with a cell twice is refused too";
}

TEST(GateRefuses, ByteFiguresBeyond2To53AndNegativeBytes) {
  json base = host_run();
  std::uint64_t peak = first_ok_cell(base)["metrics"]["peak_requested"].get<std::uint64_t>();
  ASSERT_GT(peak, 0u);
  for (const std::string& value :
       {std::string("18446744073709551616"),  // 2^64: parsed as a double, wrapped
        std::string("9223372036854775809"),   // 2^63 + 1: a negative int64 once signed
        std::string("9007199254740993"),      // 2^53 + 1
        std::string("-4096")}) {              // negative bytes
    std::string text = base.dump();
    std::string key = "\"peak_requested\":" + std::to_string(peak);
    std::size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, key.size(), "\"peak_requested\":" + value);
    std::string what = refusal(base, base, nullptr, text);
    EXPECT_NE(what.find("metrics.peak_requested: "), std::string::npos) << what;
    EXPECT_NE(what.find(" is out of range (0 to 2^53)"), std::string::npos) << what;
  }
}

TEST(GateRefuses, ANumberNoDoubleHoldsIsExit2NamingTheFileNotAnInternalError) {
  TempDir dir;
  const std::string b = dir.file("b.json"), c = dir.file("c.json");
  write_text(b, read_text(kHostRun));
  std::string text = read_text(kHostRun);
  text.replace(text.find("\"wall_ns\":") + 10, 1, "1e400,\"x\":");
  write_text(c, text);
  auto r = run_command(memrel_command("compare '" + b + "' '" + c + "'"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("memrel: " + c + ": /cells/0/wall_ns: number overflow"),
            std::string::npos)
      << r.output;
}

TEST(GateRefuses, ADuplicateKeyInAResultsFile) {
  json base = host_run();
  std::string text = base.dump();
  std::size_t at = text.find("\"status\":\"ok\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"status\":\"crashed\",");  // which one is the cell's status?
  std::string what = refusal(base, base, nullptr, text);
  EXPECT_NE(what.find("key \"status\" appears twice in one object"), std::string::npos) << what;
}

TEST(GateRefuses, AFileThatIsBothKinds) {
  json base = host_run();
  json cur = base;
  cur["benchmarks"] = json::array();
  EXPECT_NE(refusal(base, cur).find("ambiguous"), std::string::npos);
}

// --- Google Benchmark JSON ------------------------------------------------------------------

json bench(const std::vector<double>& real_time_us, double reserved = 4096) {
  json j = {{"context", {{"date", "2026-12-03"}}}, {"benchmarks", json::array()}};
  for (std::size_t i = 0; i < real_time_us.size(); ++i) {
    j["benchmarks"].push_back({{"name", "pair/cuda-malloc/warm/4096"},
                               {"run_name", "pair/cuda-malloc/warm/4096"},
                               {"run_type", "iteration"},
                               {"repetitions", real_time_us.size()},
                               {"repetition_index", i},
                               {"threads", 1},
                               {"iterations", 1000},
                               {"real_time", real_time_us[i]},
                               {"time_unit", "us"},
                               {"reserved", reserved}});
  }
  return j;
}

TEST(GateRefuses, NegativeBenchmarkTimesInsteadOfCallingThemImproved) {
  json base = bench({10, 10.1, 9.9, 10.2, 9.8});
  json cur = bench({-10, -10.1, -9.9, -10.2, -9.8});
  std::string what = refusal(base, cur);
  EXPECT_NE(what.find("benchmarks[0] (pair/cuda-malloc/warm/4096): real_time -10"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("impossible"), std::string::npos) << what;
}

TEST(GateRefuses, ByteCountersOutOfRange) {
  json base = bench({10, 10, 10, 10, 10});
  EXPECT_NE(refusal(base, bench({10, 10, 10, 10, 10}, -4096)).find("counter \"reserved\""),
            std::string::npos);
  EXPECT_NE(refusal(base, bench({10, 10, 10, 10, 10}, 1e30)).find("is impossible"),
            std::string::npos);
}

// iterations is a whole number from 1: -5, 0 and 1.5 were read as a figure's own (sixth pass).
TEST(GateRefuses, IterationsThatAreNotAWholeNumberFromOne) {
  json base = bench({10, 10.1, 9.9, 10.2, 9.8});
  for (const json& bad : {json(-5), json(0), json(1.5), json("9")}) {
    json cur = base;
    cur["benchmarks"][0]["iterations"] = bad;
    const std::string what = refusal(base, cur);
    EXPECT_NE(what.find("benchmarks[0] (pair/cuda-malloc/warm/4096): iterations " + bad.dump() +
                        " is impossible"),
              std::string::npos)
        << what;
  }
}

TEST(GateRefuses, TheSameBenchmarkTwice) {
  json base = bench({10, 10.1, 9.9, 10.2, 9.8});
  json twice = base;
  json slow = bench({90, 90, 90, 90, 90});
  for (const auto& e : slow["benchmarks"]) twice["benchmarks"].push_back(e);  // appended run
  EXPECT_NE(refusal(base, twice).find("a second time: the benchmark is in the file twice?"),
            std::string::npos);
  json aggregates = base;
  for (int i = 0; i < 2; ++i) {
    aggregates["benchmarks"].push_back({{"name", "pair/cuda-malloc/warm/4096_median"},
                                        {"run_name", "pair/cuda-malloc/warm/4096"},
                                        {"run_type", "aggregate"},
                                        {"aggregate_name", "median"},
                                        {"real_time", 10.0 + 80 * i},
                                        {"time_unit", "us"}});
  }
  EXPECT_NE(refusal(base, aggregates).find("a second \"median\" aggregate"), std::string::npos);
  json no_index = base;
  for (auto& e : no_index["benchmarks"]) e.erase("repetition_index");
  no_index["benchmarks"].push_back(no_index["benchmarks"][0]);
  EXPECT_NE(refusal(base, no_index).find("more iteration entries than its \"repetitions\" (5)"),
            std::string::npos);
}

TEST(GateArithmetic, AByteDifferenceBeyond64BitsIsRefusedNotWrapped) {
  std::vector<Row> rows;
  EXPECT_THROW(compare_bytes(rows, "s", "m", INT64_MIN, INT64_MAX, ByteTolerance{}), ResultsError);
  compare_bytes(rows, "s", "m", std::int64_t{1} << 53, -(std::int64_t{1} << 53), ByteTolerance{});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, Verdict::kImproved);
}

}  // namespace
}  // namespace memrel
