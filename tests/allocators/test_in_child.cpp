#include "allocators/test_in_child.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "platform/child_process.hpp"

namespace memrel::testing {
namespace {

std::string this_executable() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// GoogleTest's lines between "[ RUN      ] NAME" and the test's verdict line: its messages
// (for a skip, "...: Skipped" and the reason).
std::string test_messages(const std::string& output) {
  std::size_t start = output.find("[ RUN      ]");
  if (start == std::string::npos) return output;
  start = output.find('\n', start);
  if (start == std::string::npos) return "";
  std::size_t end = output.find("\n[ ", start + 1);
  return output.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

}  // namespace

bool running_in_child() {
  const char* v = std::getenv(kInChildVariable);
  return v != nullptr && std::string(v) == "1";
}

ChildVerdict run_test_in_child(const std::string& full_name,
                               const std::map<std::string, std::string>& environment,
                               bool also_run_disabled) {
  ChildVerdict verdict;
  ChildSpec spec;
  spec.args = {this_executable(), "--gtest_filter=" + full_name, "--gtest_color=no"};
  if (also_run_disabled) spec.args.push_back("--gtest_also_run_disabled_tests");
  spec.environment = environment;
  spec.environment[kInChildVariable] = "1";
  int out = anonymous_file();
  spec.stdout_fd = out;
  spec.stderr_fd = out;
  pid_t pid = start_child(spec);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  verdict.output = read_whole_fd(out);
  close(out);

  const std::string& o = verdict.output;
  if (!WIFEXITED(status)) {
    verdict.why =
        "the child died of signal " + std::to_string(WTERMSIG(status)) + ": " + test_messages(o);
  } else if (!contains(o, "[==========] 1 test from 1 test suite ran.")) {
    verdict.why = "the child did not run exactly the one test " + full_name;
  } else if (WEXITSTATUS(status) != 0) {
    verdict.why =
        "the child exited with " + std::to_string(WEXITSTATUS(status)) + ": " + test_messages(o);
  } else if (contains(o, "[  SKIPPED ] 1 test")) {
    verdict.status = ChildVerdict::Status::kSkipped;
    verdict.why = test_messages(o);
  } else if (contains(o, "[  PASSED  ] 1 test.")) {
    verdict.status = ChildVerdict::Status::kPassed;
  } else {
    verdict.why = "GoogleTest in the child reported no verdict";
  }
  return verdict;
}

}  // namespace memrel::testing
