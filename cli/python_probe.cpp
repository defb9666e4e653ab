#include "cli/python_probe.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "platform/child_process.hpp"

namespace memrel::cli {

std::string python_interpreter_problem(const std::string& python) {
  const std::string answer = "memrel-python-3";
  int out = -1;
  pid_t pid = -1;
  try {
    out = anonymous_file();
    ChildSpec spec;
    spec.args = {python, "-I", "-c",
                 "import sys; sys.stdout.write('memrel-python-%d' % sys.version_info[0])"};
    spec.stdout_fd = out;
    spec.search_path = true;  // a name without / is looked up on PATH's absolute entries
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
