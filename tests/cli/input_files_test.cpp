// Every input file kind through the memrel binary, by the one set of input rules
// (docs/inputs.md): a FIFO, a character device and a file over its cap are refused at once with
// exit 2 and one line naming the file; so is JSON with a key twice in one object.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.hpp"

namespace memrel {
namespace {

using testing::memrel_command;
using testing::run_command;
using testing::TempDir;
using testing::write_text;

const std::string kWorkloads = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads";
const std::string kBackends = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/backends";
const std::string kHostRun = std::string(MEMREL_TEST_DATA) + "/host-run.json";

// Runs ARGS with a time limit (a reader that blocks on a FIFO shows as exit 124) and, where the
// sanitizer allows one, a memory limit (a reader that reads a device to the end shows as exit 4
// when memory runs out, instead of taking the machine's).
testing::CommandResult memrel_limited(const std::string& args) {
  std::string limit = MEMREL_UNDER_ASAN ? "" : "ulimit -v 4000000; ";
  return run_command("sh -c \"" + limit + "timeout 20 " + memrel_command(args) + "\"");
}

// Exit 2, one line, "memrel: FILE: ..." holding `what`.
void expect_refused(const testing::CommandResult& r, const std::string& file,
                    const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("memrel: " + file + ": ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line: " << r.output;
}

class InputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    fifo_ = dir_.file("input.json");
    ASSERT_EQ(mkfifo(fifo_.c_str(), 0600), 0);
    trace_fifo_ = dir_.file("input.memtrace");
    ASSERT_EQ(mkfifo(trace_fifo_.c_str(), 0600), 0);
    trace_device_ = dir_.file("zero.memtrace");
    ASSERT_EQ(symlink("/dev/zero", trace_device_.c_str()), 0);
  }
  TempDir dir_;
  std::string fifo_, trace_fifo_, trace_device_;
};

TEST_F(InputFiles, AFifoOfAnyKindIsRefusedAtOnce) {
  const std::string fifo_kind = "a FIFO, not a regular file";
  expect_refused(memrel_limited("validate '" + fifo_ + "'"), fifo_, fifo_kind);
  expect_refused(memrel_limited("validate '" + trace_fifo_ + "'"), trace_fifo_, fifo_kind);
  expect_refused(
      memrel_limited("run -w '" + fifo_ + "' -b host-malloc -o '" + dir_.file("o.json") + "'"),
      fifo_, fifo_kind);
  expect_refused(memrel_limited("compare '" + kHostRun + "' '" + fifo_ + "'"), fifo_, fifo_kind);
  expect_refused(memrel_limited("compare '" + fifo_ + "' '" + kHostRun + "'"), fifo_, fifo_kind);
  expect_refused(
      memrel_limited("run -b '" + fifo_ + "' -w single-large -o '" + dir_.file("o.json") + "'"),
      fifo_, fifo_kind);
}

TEST_F(InputFiles, ACharacterDeviceIsRefusedNotReadUntilMemoryRunsOut) {
  const std::string device = "a character device, not a regular file";
  expect_refused(memrel_limited("validate /dev/zero"), "/dev/zero", device);
  expect_refused(memrel_limited("validate '" + trace_device_ + "'"), trace_device_, device);
  expect_refused(memrel_limited("compare '" + kHostRun + "' /dev/zero"), "/dev/zero", device);
  expect_refused(
      memrel_limited("run -b /dev/zero -w single-large -o '" + dir_.file("o.json") + "'"),
      "/dev/zero", device);
}

TEST_F(InputFiles, AWorkloadOverItsCapIsRefusedByItsSize) {
  // Valid JSON, so that only the cap can refuse it: a shipped workload padded to 5 MiB.
  std::string text = testing::read_text(kWorkloads + "/single-large.json");
  text.insert(text.rfind('}'), std::string(5 << 20, ' '));
  const std::string big = dir_.file("big.json");
  write_text(big, text);
  expect_refused(memrel_limited("validate '" + big + "'"), big,
                 "bytes, more than the 4 MiB a workload may have (docs/inputs.md)");
  const std::string big_results = dir_.file("big-results.json");
  write_text(big_results, "");
  ASSERT_EQ(truncate(big_results.c_str(), 200 << 20), 0);  // sparse
  expect_refused(memrel_limited("compare '" + big_results + "' '" + big_results + "'"), big_results,
                 "more than the 128 MiB a results file may have");
}

TEST_F(InputFiles, AKeyTwiceInOneObjectIsRefusedInEveryKind) {
  std::string workload = testing::read_text(kWorkloads + "/single-large.json");
  workload.insert(workload.find('{') + 1, "\"name\": \"other\",");
  const std::string w = dir_.file("w.json");
  write_text(w, workload);
  expect_refused(memrel_limited("validate '" + w + "'"), w, "/: key \"name\" appears twice");

  std::string backend = testing::read_text(kBackends + "/pluggable-host-example.json");
  backend.insert(backend.find('{') + 1, "\"space\": \"device\",");
  const std::string b = dir_.file("b.json");
  write_text(b, backend);
  expect_refused(
      memrel_limited("run -b '" + b + "' -w single-large -o '" + dir_.file("o.json") + "'"), b,
      "key \"space\" appears twice");

  const std::string bench = dir_.file("bench.json");
  write_text(bench,
             R"({"context": {}, "benchmarks": [{"name": "x", "real_time": 1, "real_time": -1}]})");
  expect_refused(memrel_limited("compare '" + bench + "' '" + bench + "'"), bench,
                 "/benchmarks/0: key \"real_time\" appears twice");
}

}  // namespace
}  // namespace memrel
