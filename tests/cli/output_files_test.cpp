// Every output through the memrel binary, by the one output rule (docs/inputs.md, "Outputs"): an
// output that is one of the command's inputs, told by identity and not by spelling, is refused
// with exit 2 before any work and the input is left as it was; so is an output path that is a
// symbolic link, a FIFO or a device. And every threshold of the gate is range-checked: nan and
// inf would switch a rule off.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "gate/format.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

using testing::memrel_command;
using testing::read_text;
using testing::run_command;
using testing::TempDir;
using testing::write_text;

const std::string kWorkloads = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads";
const std::string kHostRun = std::string(MEMREL_TEST_DATA) + "/host-run.json";

testing::CommandResult memrel_limited(const std::string& args) {
  return run_command("timeout 60 " + memrel_command(args));
}

// Exit 2 and one line holding every word.
void expect_refused(const testing::CommandResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line: " << r.output;
  for (const auto& w : words) EXPECT_NE(r.output.find(w), std::string::npos) << r.output;
}

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    workload_ = dir_.file("wl.json");
    write_text(workload_, read_text(kWorkloads + "/single-large.json"));
    baseline_ = dir_.file("base.json");
    write_text(baseline_, read_text(kHostRun));
  }
  TempDir dir_;
  std::string workload_, baseline_;
};

TEST_F(OutputFiles, RunOntoItsOwnWorkloadIsRefusedAndTheWorkloadKept) {
  const std::string before = read_text(workload_);
  // Spelled another way: the same file by identity.
  const std::string other_spelling = dir_.path().string() + "/./wl.json";
  expect_refused(memrel_limited("run -b null -w '" + workload_ + "' -o '" + other_spelling + "'"),
                 {"-o", "is the input"});
  EXPECT_EQ(read_text(workload_), before);
}

TEST_F(OutputFiles, CompareOutputsOntoTheBaselineAreRefusedByIdentity) {
  const std::string before = read_text(baseline_);
  const std::string hard_link = dir_.file("verdict.md");
  ASSERT_EQ(link(baseline_.c_str(), hard_link.c_str()), 0);
  for (const std::string option : {"--markdown", "--junit", "--summary"}) {
    expect_refused(memrel_limited("compare '" + baseline_ + "' '" + kHostRun + "' " + option +
                                  " '" + hard_link + "'"),
                   {option, "is the input"});
    EXPECT_EQ(read_text(baseline_), before) << option;
  }
}

TEST_F(OutputFiles, MergeAndHistoryOntoTheirInputsAreRefused) {
  const std::string before = read_text(baseline_);
  expect_refused(memrel_limited("history --db '" + baseline_ + "' add '" + baseline_ + "'"),
                 {"--db", "is the input"});
  EXPECT_EQ(read_text(baseline_), before);
}

TEST_F(OutputFiles, ASymbolicLinkAsOutputIsRefusedAndItsTargetKept) {
  const std::string target = dir_.file("target.txt");
  write_text(target, "precious\n");
  const std::string link_path = dir_.file("link.json");
  ASSERT_EQ(symlink(target.c_str(), link_path.c_str()), 0);
  expect_refused(memrel_limited("run -b null -w '" + workload_ + "' -o '" + link_path + "'"),
                 {link_path, "a symbolic link"});
  expect_refused(memrel_limited("compare '" + kHostRun + "' '" + kHostRun + "' --markdown '" +
                                link_path + "'"),
                 {link_path, "a symbolic link"});
  expect_refused(memrel_limited("merge -o '" + link_path + "' '" + kHostRun + "'"),
                 {link_path, "a symbolic link"});
  expect_refused(memrel_limited("cell --backend null --workload '" + workload_ + "' --out '" +
                                link_path + "'"),
                 {link_path, "a symbolic link"});
  EXPECT_EQ(read_text(target), "precious\n");
  struct stat st {};
  ASSERT_EQ(lstat(link_path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(OutputFiles, AFifoOrADeviceAsOutputIsRefusedWithoutBlocking) {
  const std::string fifo = dir_.file("out.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_refused(
      memrel_limited("compare '" + kHostRun + "' '" + kHostRun + "' --junit '" + fifo + "'"),
      {fifo, "a FIFO"});
  expect_refused(memrel_limited("run -b null -w '" + workload_ + "' -o '" + fifo + "'"),
                 {fifo, "a FIFO"});
  expect_refused(
      memrel_limited("compare '" + kHostRun + "' '" + kHostRun + "' --summary /dev/null"),
      {"/dev/null", "a character device"});
}

TEST_F(OutputFiles, MergeIntoAFolderIsOneLineNotATraceback) {
  expect_refused(memrel_limited("merge -o '" + dir_.path().string() + "' '" + kHostRun + "'"),
                 {"a folder"});
}

// A bad option: exit 2 and CLI11's line naming the option, after "memrel: " as every error.
void expect_bad_option(const testing::CommandResult& r, const std::string& option) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("memrel: " + option + ": '", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("is not a finite number"), std::string::npos) << r.output;
}

TEST(Thresholds, NanInfAndNegativeThresholdsAreRefused) {
  for (const std::string value : {"nan", "NaN", "inf", "-inf", "-0.1", "1e300"}) {
    expect_bad_option(memrel_limited("compare '" + kHostRun + "' '" + kHostRun +
                                     "' --latency-min-change " + value),
                      "--latency-min-change");
  }
  for (const std::string value : {"nan", "inf", "-1", "0", "0.9"})
    expect_bad_option(
        memrel_limited("compare '" + kHostRun + "' '" + kHostRun + "' --alpha " + value),
        "--alpha");
  for (const std::string value : {"nan", "inf"}) {
    expect_bad_option(memrel_limited("ab -b null --alpha " + value), "--alpha");
    expect_bad_option(memrel_limited("ab -b null --latency-min-change " + value),
                      "--latency-min-change");
  }
  EXPECT_EQ(memrel_limited("compare '" + kHostRun + "' '" + kHostRun +
                           "' --latency-min-change 1.5 --alpha 0.01")
                .exit_code,
            0);
}

}  // namespace
}  // namespace memrel

namespace memrel {
namespace {

// Duplicates in the matrix are refused before the first cell (docs/inputs.md, "Duplicates"):
// results with two cells of one key are what compare, report and history then refuse.
TEST(Duplicates, TheSameBackendOrWorkloadTwiceIsRefusedAtTheStart) {
  TempDir dir;
  const std::string out = dir.file("run.json");
  expect_refused(memrel_limited("run -b null,null -w temp-then-delete -o '" + out + "'"),
                 {"-b", "null", "twice"});
  expect_refused(
      memrel_limited("run -b null -w temp-then-delete,temp-then-delete -o '" + out + "'"),
      {"-w", "twice"});
  // Another file of the same name (a trace's header name can equal a workload's the same way).
  const std::string copy = dir.file("copy.json");
  write_text(copy, read_text(kWorkloads + "/temp-then-delete.json"));
  expect_refused(memrel_limited("run -b null -w temp-then-delete,'" + copy + "' -o '" + out + "'"),
                 {"'temp-then-delete' is both", copy});
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".journal"));
}

}  // namespace
}  // namespace memrel

namespace memrel {
namespace {

// A name's markup shows as text in compare --markdown (docs/inputs.md, "Markup"):
// tests/data/markdown_texts.json, which test_hostile_inputs.py checks the Python twin
// (scripts/memrel_outputs/markdown_text.py) against. The tenth adversarial pass: `a\|b` split its
// row (the backslash was not escaped), `**B**~~s~~` rendered bold and struck through.
TEST(Markup, AgreesWithTheSharedTable) {
  const nlohmann::json table = testing::shared_test_table("markdown_texts.json");
  ASSERT_GE(table.size(), 10u);
  for (const auto& row : table) {
    EXPECT_EQ(format::markdown_cell(testing::from_hex(row[0].get<std::string>())),
              row[1].get<std::string>())
        << row[0].get<std::string>();
  }
  EXPECT_EQ(format::markdown_cell("cuda-malloc/single-large · peak_reserved"),
            "cuda-malloc/single-large · peak_reserved");
}

}  // namespace
}  // namespace memrel
