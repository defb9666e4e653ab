// The gate's printers: JUnit XML and the one-screen summary render the same rows as Markdown.
#include <gtest/gtest.h>

#include <string>

#include "gate/compare.hpp"
#include "gate/print/change_column.hpp"
#include "gate/print/json.hpp"
#include "gate/print/junit.hpp"
#include "gate/print/markdown.hpp"
#include "gate/print/summary.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Report failing_report() {
  // Two real files that share no benchmark: every baseline benchmark is missing.
  return compare_paths(std::string(MEMREL_TEST_DATA) + "/host-bench.json",
                       std::string(MEMREL_TEST_DATA) + "/synthetic-bench.json", {});
}

TEST(JunitXml, ATestcasePerRowAndAFailurePerRegressionOrMissingFigure) {
  Report report = failing_report();
  Summary s = report.summary();
  ASSERT_GT(s.missing, 0u);
  std::size_t rows = 0;
  for (const auto& f : report.files) rows += f.rows.size();
  std::string xml = to_junit_xml(report);
  EXPECT_EQ(count(xml, "<testcase "), rows);
  EXPECT_EQ(count(xml, "<failure "), s.regressions + s.missing);
  EXPECT_NE(xml.find("failures=\"" + std::to_string(s.regressions + s.missing) + "\""),
            std::string::npos);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
}

TEST(JunitXml, ClassnamesHaveOneDotBetweenFileAndCell) {
  // Jenkins makes packages of a classname's dots: "suite.json" must not become package "suite".
  Report report;
  report.files.push_back({"bench-host.malloc.json", "", "", {}});
  add_row(report.files[0].rows, "pair.warm/4096", "real_time", "1", "2", "", Verdict::kOk);
  std::string xml = to_junit_xml(report);
  EXPECT_NE(xml.find("classname=\"bench-host_malloc.pair_warm/4096\""), std::string::npos) << xml;
}

TEST(JunitXml, CellsWhoseDotsAreReplacedKeepClassnamesOfTheirOwn) {
  // "a.b" and "a_b" made one classname, and a regression of one was reported under the other's
  // name (the twenty-second adversarial pass, c6-junit-dot-underscore-workloads-collide).
  Report report;
  report.files.push_back({"r.json", "", "", {}});
  add_row(report.files[0].rows, "host-malloc/a_b", "peak", "1", "1", "", Verdict::kOk);
  add_row(report.files[0].rows, "host-malloc/a.b", "peak", "1", "3", "", Verdict::kRegression);
  add_row(report.files[0].rows, "host-malloc/a.b", "release", "1", "1", "", Verdict::kOk);
  std::string xml = to_junit_xml(report);
  // a_b, its name as written, keeps it; a.b, dots replaced, is numbered, and named as written.
  EXPECT_EQ(count(xml, "classname=\"r.host-malloc/a_b\" "), 1u) << xml;
  EXPECT_EQ(count(xml, "classname=\"r.host-malloc/a_b (2)\" "), 2u) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"r.host-malloc/a_b (2)\" name=\"peak\">\n      "
                     "<failure message=\"REGRESSION\">host-malloc/a.b: baseline 1; current 3"),
            std::string::npos)
      << xml;
}

TEST(JunitXml, NamesAreEscaped) {
  Report report;
  report.files.push_back({"a<b>.json", "", "", {}});
  add_row(report.files[0].rows, "x&\"y'", "m\x01", "1", "2", "", Verdict::kRegression);
  // A right-to-left override turned the text after it around in a CI viewer (the thirteenth
  // adversarial pass, c9-junit-bidi-*): said as the Markdown and error lines say it.
  add_row(report.files[0].rows, "r\xe2\x80\xaes", "n", "1", "2", "", Verdict::kRegression);
  std::string xml = to_junit_xml(report);
  EXPECT_NE(xml.find("classname=\"a&lt;b&gt;.x&amp;&quot;y&apos;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"m\\x01\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_NE(xml.find("r\\u202Es"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("\xe2\x80\xae"), std::string::npos);
}

TEST(SummaryMarkdown, SaysFailAndListsTheFirstFailingRowsOnly) {
  Report report = failing_report();
  std::string md = to_summary_markdown(report, 5);
  EXPECT_EQ(md.rfind("### memrel gate: FAIL", 0), 0u) << md;
  EXPECT_EQ(count(md, "| **missing** |"), 5u) << md;
  EXPECT_NE(md.find("more in the full table"), std::string::npos);
  Report same = compare_paths(std::string(MEMREL_TEST_DATA) + "/host-bench.json",
                              std::string(MEMREL_TEST_DATA) + "/host-bench.json", {});
  EXPECT_EQ(to_summary_markdown(same).rfind("### memrel gate: PASS", 0), 0u);
}

TEST(CompareCommand, WritesJunitAndSummaryBesideTheTable) {
  testing::TempDir dir;
  std::string junit = dir.file("gate.xml"), summary = dir.file("summary.md");
  auto r = testing::run_command(
      testing::memrel_command("compare '" + std::string(MEMREL_TEST_DATA) + "/host-bench.json' '" +
                              std::string(MEMREL_TEST_DATA) + "/synthetic-bench.json' --junit '" +
                              junit + "' --summary '" + summary + "'"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(testing::read_text(junit).find("<testsuites name=\"memrel compare\""),
            std::string::npos);
  EXPECT_NE(testing::read_text(summary).find("FAIL"), std::string::npos);
  testing::write_text(dir.file("afile"), "");  // a file where --junit's folder would be made
  auto bad = testing::run_command(
      testing::memrel_command("compare '" + std::string(MEMREL_TEST_DATA) + "/host-bench.json' '" +
                              std::string(MEMREL_TEST_DATA) + "/host-bench.json' --junit '" +
                              dir.file("afile/x.xml") + "'"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  // Valid JUnit XML (tests/data/junit/junit.xsd; xmllint from libxml2-utils, which
  // scripts/install-deps installs; the GPU machine has none).
  if (testing::run_command("command -v xmllint").exit_code != 0)
    GTEST_SKIP() << "xmllint is not installed (scripts/install-deps): the XML was not validated";
  auto valid = testing::run_command("xmllint --noout --schema '" + std::string(MEMREL_TEST_DATA) +
                                    "/junit/junit.xsd' '" + junit + "'");
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  // Refused before the comparison (docs/inputs.md, "Outputs"): no table printed first.
  EXPECT_EQ(
      bad.output.rfind("memrel: --junit " + dir.file("afile/x.xml") +
                           ": cannot create its folder (" + dir.file("afile") + " is not a folder)",
                       0),
      0u)
      << bad.output;
}

TEST(ChangeColumn, TheChangeThenThePValueThenTheReason) {
  Row r;
  EXPECT_EQ(change_column(r), "");
  r.reason = "stopped running";
  EXPECT_EQ(change_column(r), "stopped running");
  r.change = "+31.0%";
  r.p_value = 0.0079;
  EXPECT_EQ(change_column(r), "+31.0%, p=0.0079; stopped running");
  r.reason.clear();
  EXPECT_EQ(change_column(r), "+31.0%, p=0.0079");
}

// The JSON says what the Markdown says: the same rows in the same order with the same verdicts,
// the change, p-value and reason apart, and the same summary.
TEST(VerdictJson, EveryRowAndTheSummaryAsData) {
  Report report = failing_report();
  Summary s = report.summary();
  nlohmann::json j = to_verdict_json(report, {});
  EXPECT_EQ(j["schema"], "memrel.gate-verdicts/1");
  ASSERT_EQ(j["files"].size(), report.files.size());
  std::size_t rows = 0;
  for (std::size_t f = 0; f < report.files.size(); ++f) {
    const auto& jrows = j["files"][f]["rows"];
    ASSERT_EQ(jrows.size(), report.files[f].rows.size());
    for (std::size_t i = 0; i < jrows.size(); ++i, ++rows) {
      const Row& r = report.files[f].rows[i];
      EXPECT_EQ(jrows[i]["subject"], r.subject);
      EXPECT_EQ(jrows[i]["metric"], r.metric);
      EXPECT_EQ(jrows[i]["change"], r.change);
      EXPECT_EQ(jrows[i]["reason"], r.reason);
      EXPECT_EQ(jrows[i]["verdict"], verdict_name(r.verdict));
      EXPECT_EQ(jrows[i]["p_value"].is_null(), !r.p_value.has_value());
    }
  }
  EXPECT_GT(rows, 0u);
  const auto& summary = j["summary"];
  EXPECT_EQ(summary["counts"]["missing"], s.missing);
  EXPECT_EQ(summary["counts"]["REGRESSION"], s.regressions);
  EXPECT_EQ(summary["compared"], s.compared);
  EXPECT_EQ(summary["exit_code"], 1);
  EXPECT_EQ(summary["result"], "FAIL");
  EXPECT_NE(to_markdown(report, {}).find(": FAIL."), std::string::npos);
}

TEST(VerdictJson, APValueWhereALatencyWasTestedAndNoneElsewhere) {
  const std::string bench = std::string(MEMREL_TEST_DATA) + "/host-bench.json";
  nlohmann::json j = to_verdict_json(compare_paths(bench, bench, {}), {});
  std::size_t tested = 0, untested = 0;
  for (const auto& f : j["files"]) {
    for (const auto& r : f["rows"]) {
      if (r["metric"] == "real_time" && r["p_value"].is_number()) {
        ++tested;
        EXPECT_GE(r["p_value"].get<double>(), 0.0);
        EXPECT_LE(r["p_value"].get<double>(), 1.0);
      } else {
        EXPECT_TRUE(r["p_value"].is_null()) << r.dump();
        ++untested;
      }
    }
  }
  EXPECT_GT(tested, 0u);
  EXPECT_GT(untested, 0u);
  EXPECT_EQ(j["summary"]["result"], "PASS");
  EXPECT_EQ(j["summary"]["exit_code"], 0);
}

TEST(VerdictJson, TheVerdictsAreTheSchemasEnum) {
  nlohmann::json schema = nlohmann::json::parse(testing::read_text(
      std::string(MEMREL_SOURCE_DIR) + "/docs/schemas/gate-verdicts.schema.json"));
  EXPECT_EQ(schema["$defs"]["verdict"]["enum"], nlohmann::json(verdict_names()));
  std::size_t counted = 0;
  for (const auto& name : verdict_names())
    counted += to_verdict_json(failing_report(), {})["summary"]["counts"].contains(name);
  EXPECT_EQ(counted, verdict_names().size());
}

}  // namespace
}  // namespace memrel
