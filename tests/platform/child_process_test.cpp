// Children as the runner starts them: their own group, the environment given, fd 3 handed over,
// the whole group killed, and anonymous files that leave no name behind.
#include "platform/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
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

bool alive(pid_t pid) {
  std::string stat = testing::read_text("/proc/" + std::to_string(pid) + "/stat");
  return !stat.empty() && stat.substr(stat.rfind(')') + 2, 1) != "Z";
}

// The fourth adversarial pass, s11: the parent-death signal was SIGTERM, which a child may
// handle (Python does, between bytecodes only) or ignore, and then it outlived its parent.
TEST(ChildProcess, EndsWithItsParentKilledOutrightEvenIgnoringSigterm) {
  testing::TempDir dir;
  const std::string pid_file = dir.file("child");
  pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    ChildSpec spec;
    // The shell ignores SIGTERM, and exec keeps it ignored in sleep (the same pid).
    spec.args = {"/bin/sh", "-c",
                 "trap '' TERM; echo $$ > '" + pid_file + ".tmp'; mv '" + pid_file + ".tmp' '" +
                     pid_file + "'; exec sleep 600"};
    start_child(spec);
    pause();
    _exit(0);
  }
  for (int i = 0; i < 1000 && testing::read_text(pid_file).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(testing::read_text(pid_file).empty());
  const pid_t child = std::stoi(testing::read_text(pid_file));
  kill(middle, SIGKILL);
  wait_for(middle);
  for (int i = 0; i < 500 && alive(child); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool outlived = alive(child);
  if (outlived) kill(child, SIGKILL);
  EXPECT_FALSE(outlived) << "the child outlived its parent's SIGKILL";
}

// The fourth adversarial pass, c10: PATH=:$PATH (an empty entry is the working folder) ran
// ./python3 for a bare python3.
// The twelfth adversarial pass, c8-binary-removed-mid-run: a program gone by the time memrel
// starts it is said as that, not as the child's own exit 127 (the allocator's "crash").
TEST(ChildProcess, AnExecThatFailsIsAChildStartErrorNamingTheProgram) {
  ChildSpec spec;
  spec.args = {"/nonexistent/memrel-test-program", "cell"};
  try {
    start_child(spec);
    FAIL() << "started";
  } catch (const ChildStartError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot start /nonexistent/memrel-test-program: No such file or directory");
  }
  spec.args = {"/dev/null"};
  EXPECT_THROW(start_child(spec), ChildStartError);  // not executable
}

TEST(ChildProcess, APathLookupSkipsEveryEntryThatIsTheWorkingFolder) {
  testing::TempDir dir;
  const std::string marker = dir.file("ran");
  const std::string program = dir.file("memrel-test-program");
  testing::write_text(program, "#!/bin/sh\ntouch '" + marker + "'\n");
  chmod(program.c_str(), 0755);
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  const auto saved_cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  ChildSpec spec;
  spec.args = {"memrel-test-program"};
  spec.search_path = true;
  setenv("PATH", ("::.:" + saved_path).c_str(), 1);
  EXPECT_THROW(start_child(spec), ChildStartError);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the working folder's program ran";
  // The fifth pass, c10 again: an absolute spelling of the working folder is the working folder.
  setenv("PATH", ("/proc/self/cwd:" + dir.path().string() + ":" + saved_path).c_str(), 1);
  EXPECT_THROW(start_child(spec), ChildStartError);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the working folder's program ran";
  int status = 0;
  // The same folder on PATH, absolute, from another working folder: found there.
  std::filesystem::current_path(saved_cwd);
  setenv("PATH", (saved_path + ":" + dir.path().string()).c_str(), 1);
  status = wait_for(start_child(spec));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(std::filesystem::exists(marker));
  setenv("PATH", saved_path.c_str(), 1);
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
