// A zygote as the runner uses it, through the real binary (`memrel cell --backend host-malloc
// --zygote`): children forked on request run their command line with the descriptors and
// environment given, their wait status comes back (an exit code, a signal), a kill reaches the
// child's group, and nothing outlives the zygote. fork_hazard refuses a process with a thread.
#include "platform/zygote.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "test_support.hpp"

namespace memrel {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<ZygoteClient> host_zygote() {
  ChildSpec spec;
  spec.args = {MEMREL_BINARY, "cell", "--backend", "host-malloc", "--zygote"};
  std::string why;
  auto zygote = ZygoteClient::start(spec, 60s, &why);
  EXPECT_NE(zygote, nullptr) << why;
  return zygote;
}

// Running, and not a zombie nobody reaped.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  std::size_t close_paren = text.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < text.size() &&
         text[close_paren + 2] != 'Z';
}

int wait_for(ZygoteClient& zygote, pid_t child) {
  for (int i = 0; i < 6000; ++i) {
    if (auto status = zygote.exited(child)) return *status;
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "child " << child << " did not end within 60 s";
  return zygote.kill_child(child);
}

TEST(Zygote, AChildRunsItsCommandLineWithTheDescriptorsAndEnvironmentGiven) {
  auto zygote = host_zygote();
  ASSERT_NE(zygote, nullptr);
  int out = anonymous_file();
  ChildSpec spec;
  spec.args = {MEMREL_BINARY, "--version"};
  spec.stdout_fd = out;
  pid_t child = zygote->start_child(spec);
  EXPECT_NE(child, zygote->pid());
  int status = wait_for(*zygote, child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(read_whole_fd(out).find("memrel "), std::string::npos);
  close(out);
  EXPECT_EQ(zygote->running(), 0u);
}

TEST(Zygote, AnExitCodeAndACrashComeBackAsWaitStatuses) {
  auto zygote = host_zygote();
  ASSERT_NE(zygote, nullptr);
  ChildSpec bad;
  bad.args = {MEMREL_BINARY, "no-such-subcommand"};
  int status = wait_for(*zygote, zygote->start_child(bad));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << "unusable input, as an exec'd memrel says it";

  // A cell that aborts, as the runner's tests make one (MEMREL_INJECT_FAULT, in the child's
  // environment only).
  testing::TempDir dir;
  int result = anonymous_file();
  ChildSpec crash;
  crash.args = {
      MEMREL_BINARY, "cell",
      "--backend",   "host-malloc",
      "--workload",  std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads/temp-then-delete.json",
      "--result-fd", "3"};
  crash.environment = {{"MEMREL_INJECT_FAULT", "abort"}};
  crash.fd3 = result;
  status = wait_for(*zygote, zygote->start_child(crash));
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGABRT);
  close(result);
}

TEST(Zygote, AKillEndsTheChildAndItsGroupAndEndingTheZygoteEndsItsChildren) {
  auto zygote = host_zygote();
  ASSERT_NE(zygote, nullptr);
  int result = anonymous_file();
  ChildSpec hang;
  hang.args = {
      MEMREL_BINARY, "cell",
      "--backend",   "host-malloc",
      "--workload",  std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads/temp-then-delete.json",
      "--result-fd", "3"};
  hang.environment = {{"MEMREL_INJECT_FAULT", "hang"}};
  hang.fd3 = result;
  pid_t first = zygote->start_child(hang);
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(zygote->exited(first).has_value()) << "it hangs";
  int status = zygote->kill_child(first);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  pid_t second = zygote->start_child(hang);
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(alive(second)) << "running";
  pid_t zygote_pid = zygote->pid();
  zygote.reset();  // the runner is done with it
  EXPECT_FALSE(alive(zygote_pid)) << "the zygote is gone";
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !alive(second);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone) << "its child ended with it";
  close(result);
}

TEST(Zygote, AThreadIsAForkHazard) {
  EXPECT_EQ(fork_hazard(), "");
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread waiting([&] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return done; });
  });
  EXPECT_NE(fork_hazard().find("thread"), std::string::npos);
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_one();
  waiting.join();
}

}  // namespace
}  // namespace memrel
