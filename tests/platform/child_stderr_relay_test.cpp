// A child's standard error reaches ours line by line until a foreign report begins; from there on
// it is held for the caller, whole, and nothing the child wrote before it ended is lost.
#include "platform/child_stderr_relay.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "platform/child_process.hpp"

namespace memrel {
namespace {

// Our fd 2 goes to an anonymous file while one lives; text() is what reached it.
class CapturedStderr {
 public:
  CapturedStderr() : file_(anonymous_file()), saved_(fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10)) {
    dup2(file_, STDERR_FILENO);
  }
  ~CapturedStderr() {
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    close(file_);
  }
  std::string text() const { return read_whole_fd(file_); }

 private:
  int file_;
  int saved_;
};

struct Outcome {
  std::string shown;
  std::string held;
};

// `started`, when given: the relay holds every line until a file named so exists (the child's
// own code "began" when the script makes it).
Outcome run_shell(const std::string& script, const std::string& started = "") {
  CapturedStderr captured;
  ChildStderrRelay relay({"Traceback (most recent call last):", "Fatal Python error"});
  if (!started.empty()) relay.hold_until([started] { return access(started.c_str(), F_OK) == 0; });
  ChildSpec spec;
  spec.args = {"/bin/sh", "-c", script};
  spec.stderr_fd = relay.child_end();
  const pid_t pid = start_child(spec);
  relay.child_started();
  wait_child(pid);
  Outcome outcome;
  outcome.held = relay.finish();
  outcome.shown = captured.text();
  kill(-pid, SIGKILL);  // what it left behind (a grandchild) ends with the test
  return outcome;
}

TEST(ChildStderrRelay, CopiesEveryLineWhenNoForeignReportBegins) {
  const Outcome o = run_shell("printf 'memrel x: one\\nusage: two\\nlast without newline' >&2");
  EXPECT_EQ(o.shown, "memrel x: one\nusage: two\nlast without newline");
  EXPECT_EQ(o.held, "");
}

TEST(ChildStderrRelay, ControlCharactersReachTheTerminalEscapedAsInEveryLineOfMemrels) {
  // An escape sequence in a part's stderr went to the terminal raw (the twenty-third adversarial
  // pass, c8-fakepy-exit2-multiline-ctrl); held lines are escaped alike.
  Outcome o = run_shell(
      "printf 'a \\033[31mred\\a\\n' >&2; "
      "printf 'Traceback (most recent call last):\\n\\033]0;title\\007\\n' >&2");
  EXPECT_EQ(o.shown, "a \\x1b[31mred\\x07\n");
  EXPECT_EQ(o.held, "Traceback (most recent call last):\n\\x1b]0;title\\x07\n");
}

TEST(ChildStderrRelay, HoldsWhatTheChildWritesBeforeItsCodeBeganAndReturnsItWhenItNeverDid) {
  const std::string mark = testing::TempDir() + "/relay-started-" + std::to_string(getpid());
  unlink(mark.c_str());
  const Outcome o =
      run_shell("printf 'pyenv: python3.11: command not found\\nsecond\\n' >&2", mark);
  EXPECT_EQ(o.shown, "");
  EXPECT_EQ(o.held, "pyenv: python3.11: command not found\nsecond\n");
}

TEST(ChildStderrRelay, ReleasesWhatCameBeforeOnceTheChildsCodeBegan) {
  const std::string mark = testing::TempDir() + "/relay-started-" + std::to_string(getpid());
  unlink(mark.c_str());
  const Outcome o = run_shell("printf 'start-up note\\n' >&2; touch '" + mark +
                                  "'; printf 'memrel x: said\\nTraceback (most recent call "
                                  "last):\\n  boom\\n' >&2",
                              mark);
  unlink(mark.c_str());
  EXPECT_EQ(o.shown, "start-up note\nmemrel x: said\n");
  EXPECT_EQ(o.held, "Traceback (most recent call last):\n  boom\n");
}

TEST(ChildStderrRelay, HoldsEverythingFromTheFirstForeignLineOn) {
  const Outcome o = run_shell(
      "printf 'memrel x: said\\nFatal Python error: init_import_site\\nmemrel x: after\\n' >&2");
  EXPECT_EQ(o.shown, "memrel x: said\n");
  EXPECT_EQ(o.held, "Fatal Python error: init_import_site\nmemrel x: after\n");
}

TEST(ChildStderrRelay, AStartInsideALineIsNotAReport) {
  const Outcome o =
      run_shell("printf 'memrel x: the Traceback (most recent call last): word\\n' >&2");
  EXPECT_EQ(o.shown, "memrel x: the Traceback (most recent call last): word\n");
  EXPECT_EQ(o.held, "");
}

// The same rule on a whole stderr read back after the child ended (`run -w LOG`).
TEST(ChildStderrRelay, HeldPartOfAWholeTextIsWhatTheRelayWouldHold) {
  const std::vector<std::string> starts = {"Traceback (most recent call last):",
                                           "Fatal Python error"};
  const std::string said = "memrel x: said\nmemrel x: the Traceback (most recent call last):\n";
  EXPECT_EQ(held_part(said, starts), "");
  EXPECT_EQ(held_part(said + "Fatal Python error: x\nafter", starts),
            "Fatal Python error: x\nafter");
  EXPECT_EQ(held_part("Traceback (most recent call last):\n", starts),
            "Traceback (most recent call last):\n");
  EXPECT_EQ(held_part("", starts), "");
}

TEST(ChildStderrRelay, LosesNothingOfALongOutputWrittenJustBeforeTheEnd) {
  // 200,000 lines: more than a pipe holds, so the child blocks unless the relay keeps reading.
  const Outcome o = run_shell("seq 1 200000 >&2; echo 'Traceback (most recent call last):' >&2");
  EXPECT_EQ(std::count(o.shown.begin(), o.shown.end(), '\n'), 200000);
  EXPECT_EQ(o.held, "Traceback (most recent call last):\n");
}

TEST(ChildStderrRelay, DoesNotWaitForAGrandchildThatKeepsThePipeOpen) {
  // The child ends at once; what it started sleeps with the pipe open for 30 s.
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = run_shell("echo 'memrel x: bye' >&2; (sleep 30 &) ; exit 0");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(o.shown, "memrel x: bye\n");
}

}  // namespace
}  // namespace memrel
