// Children as the runner starts them: their own group, the environment given, fd 3 handed over,
// the whole group killed, and anonymous files that leave no name behind.
#include "platform/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "test_support.hpp"

namespace memrel {
namespace {

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(ChildProcess, LeadsItsOwnGroupSeesTheEnvironmentGivenAndWritesToFd3) {
  int result = anonymous_file();
  ChildSpec spec;
  // Field 5 of /proc/PID/stat is the process group (field 2, "(sh)", has no space).
  spec.args = {"/bin/sh", "-c",
               "read -r _ _ _ _ group _ < /proc/$$/stat; echo \"$MEMREL_CHILD_TEST $group\" >&3"};
  spec.environment = {{"MEMREL_CHILD_TEST", "given"}};
  spec.fd3 = result;
  pid_t pid = start_child(spec);
  int status = wait_for(pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::string text = read_whole_fd(result);
  EXPECT_EQ(text, "given " + std::to_string(pid) + "\n");
  close(result);
}

TEST(ChildProcess, KillingTheGroupEndsWhatTheChildStarted) {
  testing::TempDir dir;
  std::string pid_file = dir.file("grandchild");
  ChildSpec spec;
  spec.args = {"/bin/sh", "-c", "sleep 600 & echo $! > '" + pid_file + "'; wait"};
  pid_t pid = start_child(spec);
  for (int i = 0; i < 500 && testing::read_text(pid_file).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  pid_t grandchild = std::stoi(testing::read_text(pid_file));
  int status = kill_child_group(pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // The grandchild is not ours to reap: dead is gone or a zombie awaiting init.
  auto alive = [&] {
    std::string stat = testing::read_text("/proc/" + std::to_string(grandchild) + "/stat");
    return !stat.empty() && stat.substr(stat.rfind(')') + 2, 1) != "Z";
  };
  for (int i = 0; i < 500 && alive(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive());
}

TEST(ChildProcess, AnAnonymousFileHasNoNameInTheTemporaryFolder) {
  testing::TempDir dir;
  setenv("TMPDIR", dir.path().c_str(), 1);
  int fd = anonymous_file();
  unsetenv("TMPDIR");
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "abc", 3), 3);
  EXPECT_EQ(read_whole_fd(fd), "abc");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  close(fd);
}

}  // namespace
}  // namespace memrel
