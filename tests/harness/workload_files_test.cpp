#include "harness/workload/workload_files.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "test_support.hpp"

namespace memrel {
namespace {

TEST(WorkloadFiles, TwoProcessesInOneSecondGetTwoDefaultResultsFiles) {
  // Named to the second only, two runs without -o in one second wrote one file, the first's
  // results replaced without a word (the twenty-second adversarial pass,
  // c6-run-default-out-same-second).
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string path = default_run_path("runs");
    const ssize_t written = write(pipe_ends[1], path.data(), path.size());
    _exit(written == static_cast<ssize_t>(path.size()) ? 0 : 1);
  }
  close(pipe_ends[1]);
  const std::string mine = default_run_path("runs");
  char buffer[256];
  const ssize_t n = read(pipe_ends[0], buffer, sizeof buffer);
  close(pipe_ends[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_GT(n, 0);
  const std::string theirs(buffer, static_cast<std::size_t>(n));
  EXPECT_NE(theirs, mine);
  EXPECT_EQ(mine.rfind("runs/run-", 0), 0u) << mine;
  EXPECT_EQ(mine.substr(mine.size() - 5), ".json") << mine;
}

TEST(WorkloadFiles, UnknownWorkloadListsTheKnownOnes) {
  try {
    resolve_workloads({"no-such-workload"},
                      std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("unknown workload 'no-such-workload'"), std::string::npos);
    EXPECT_NE(what.find("single-large"), std::string::npos);
  }
}

}  // namespace
}  // namespace memrel
