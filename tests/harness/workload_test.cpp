#include "harness/workload/workload.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "harness/workload/workload_files.hpp"
#include "platform/byte_size.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

std::string doc(const std::string& steps) {
  return R"({"schema": "memrel.workload/1", "name": "t", "steps": [)" + steps + "]}";
}

// The message a bad workload produces, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_workload_text(text, "bad.json");
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(Workload, ShapeAndDtypeGiveExactBytes) {
  Workload w = parse_workload_text(
      doc(R"({"alloc": "x", "shape": [120, 3, 512, 512], "dtype": "float32"}, {"free": "x"})"),
      "t");
  ASSERT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.steps[0].bytes, 377487360u);  // 360 MiB
  EXPECT_EQ(w.steps[0].kind, StepKind::kAlloc);
  EXPECT_EQ(w.steps[1].kind, StepKind::kFree);
}

TEST(Workload, DeviceFractionResolvesAgainstCapacity) {
  Workload w = parse_workload_text(doc(R"({"alloc": "z", "device_fraction": 0.25})"), "t");
  auto steps = resolve_steps(w, 1000);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].bytes, 250u);
}

TEST(Workload, AllocManyFillsToTheFractionAndFreeManyTakesEveryOther) {
  Workload w = parse_workload_text(
      doc(R"({"alloc_many": "f", "sizes": [30, 10], "until_device_fraction": 0.5}, {"free_many": "f", "every": 2, "offset": 0}, {"free_many": "f", "every": 2, "offset": 1})"),
      "t");
  auto steps = resolve_steps(w, 200);  // 100 bytes: 30+10+30+10 = 80, the next 30 would pass it
  std::vector<std::string> ids;
  std::uint64_t allocated = 0;
  for (const auto& s : steps) {
    ids.push_back(s.id);
    if (s.kind == StepKind::kAlloc) allocated += s.bytes;
  }
  EXPECT_EQ(allocated, 80u);
  EXPECT_EQ(ids, (std::vector<std::string>{"f[0]", "f[1]", "f[2]", "f[3]", "f[0]", "f[2]", "f[1]",
                                           "f[3]"}));
}

TEST(Workload, RepeatExpandsAndSuffixesMarks) {
  Workload w = parse_workload_text(
      doc(R"({"repeat": 3, "steps": [{"alloc": "t", "bytes": 8}, {"free": "t"}, {"mark": "m"}]})"),
      "t");
  ASSERT_EQ(w.steps.size(), 9u);
  EXPECT_EQ(w.steps[2].label, "m@0");
  EXPECT_EQ(w.steps[8].label, "m@2");
  EXPECT_NE(w.steps[3].location.find("repetition 1"), std::string::npos);
}

TEST(Workload, MalformedJsonNamesFileAndByte) {
  std::string e = error_of(R"({"schema": "memrel.workload/1", "name": "t", "steps": [)");
  EXPECT_NE(e.find("bad.json: malformed JSON at byte"), std::string::npos) << e;
}

TEST(Workload, UnknownStepNamesTheStepIndex) {
  std::string e = error_of(doc(R"({"mark": "a"}, {"allocate": "x", "bytes": 4})"));
  EXPECT_NE(e.find("bad.json: steps[1]: unknown step {allocate, bytes}"), std::string::npos) << e;
}

TEST(Workload, FreeOfUnknownId) {
  std::string e = error_of(doc(R"({"alloc": "x", "bytes": 4}, {"free": "y"})"));
  EXPECT_NE(e.find("steps[1]: free of unknown id 'y'"), std::string::npos) << e;
}

TEST(Workload, DoubleFreeSaysWhereTheFirstFreeWas) {
  std::string e = error_of(doc(R"({"alloc": "x", "bytes": 4}, {"free": "x"}, {"free": "x"})"));
  EXPECT_NE(e.find("steps[2]: double free of 'x' (already freed at steps[1])"), std::string::npos)
      << e;
}

TEST(Workload, NegativeZeroAndAbsurdSizesAreRefused) {
  EXPECT_NE(
      error_of(doc(R"({"alloc": "x", "bytes": -4})")).find("steps[0]: 'bytes' must be positive"),
      std::string::npos);
  EXPECT_NE(error_of(doc(R"({"alloc": "x", "bytes": 0})")).find("must be positive"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"({"alloc": "x", "bytes": 1e30})")).find("is impossible"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"({"alloc": "x", "bytes": 4.5})")).find("must be a positive integer"),
            std::string::npos);
  EXPECT_NE(
      error_of(doc(R"({"alloc": "x", "shape": [1000000, 1000000, 1000000], "dtype": "float32"})"))
          .find("is impossible"),
      std::string::npos);
  EXPECT_NE(error_of(doc(R"({"alloc": "x", "device_fraction": 1.5})")).find("must be in (0, 1]"),
            std::string::npos);
}

TEST(Workload, StructuralErrors) {
  EXPECT_NE(error_of(R"([1, 2])").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "memrel.workload/2", "name": "t", "steps": []})")
                .find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(error_of(doc("")).find("at least one step"), std::string::npos);
  EXPECT_NE(
      error_of(doc(R"({"alloc": "x", "shape": [4], "dtype": "float128"})")).find("unknown dtype"),
      std::string::npos);
  EXPECT_NE(error_of(doc(R"({"alloc": "x", "bytes": 4, "shape": [4], "dtype": "int8"})"))
                .find("exactly one of"),
            std::string::npos);
  EXPECT_NE(
      error_of(doc(R"({"alloc": "x", "bytes": 4}, {"alloc": "x", "bytes": 4})")).find("still live"),
      std::string::npos);
  EXPECT_NE(error_of(doc(R"({"free_many": "g"})")).find("unknown group 'g'"), std::string::npos);
  EXPECT_NE(error_of(doc(R"({"mark": "a", "extra": 1})")).find("unexpected field 'extra'"),
            std::string::npos);
}

TEST(Workload, EveryShippedWorkloadParses) {
  auto files = all_workload_files(std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads");
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    EXPECT_NO_THROW(parse_workload_file(f)) << f;
  }
}

TEST(Workload, ValidateCommandExitsTwoWithOneLine) {
  testing::TempDir dir;
  std::string bad = dir.file("broken.json");
  testing::write_text(bad, doc(R"({"alloc": "x", "bytes": 4}, {"free": "x"}, {"free": "x"})"));
  auto r = testing::run_command(testing::memrel_command("validate '" + bad + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_NE(r.output.find(bad + ": steps[2]: double free"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace memrel
