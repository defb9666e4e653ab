#include "cli/python_probe.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "platform/child_process.hpp"

namespace memrel::cli {

namespace {

// PYTHON as execvp finds it: a name without '/' is looked up on PATH (start_child takes a path).
std::string on_path(const std::string& python) {
  if (python.find('/') != std::string::npos) return python;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + python;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = colon + 1;
  }
  return python;
}

}  // namespace

std::string python_interpreter_problem(const std::string& python) {
  const std::string answer = "memrel-python-3";
  int out = -1;
  pid_t pid = -1;
  try {
    out = anonymous_file();
    ChildSpec spec;
    spec.args = {on_path(python), "-I", "-c",
                 "import sys; sys.stdout.write('memrel-python-%d' % sys.version_info[0])"};
    spec.stdout_fd = out;
    pid = start_child(spec);
  } catch (const std::runtime_error& e) {
    if (out >= 0) close(out);
    return std::string("cannot be started (") + e.what() + ")";
  }
  int status = 0;
  bool ended = false;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < deadline;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      ended = true;
      break;
    }
    if (r < 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!ended) status = kill_child_group(pid);
  std::string said = read_whole_fd(out);
  close(out);
  if (!ended) return "did not answer within 10 s";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && said.empty())
    return "cannot be run (not found, or not executable)";
  if (said.rfind("memrel-python-", 0) != 0)
    return "is not a Python interpreter (asked for its version, it " +
           std::string(WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                         : "died of signal " + std::to_string(WTERMSIG(status))) +
           (said.empty() ? " and printed nothing)" : " and printed something else)");
  if (said != answer) return "is " + said.substr(7) + ", not Python 3";
  return "";
}

}  // namespace memrel::cli
