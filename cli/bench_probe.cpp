#include "cli/bench_probe.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "platform/child_process.hpp"

namespace memrel::cli {

// Is --bench (bench) or --reference-bench / --candidate-bench (ab) a memrel_bench? Asked once
// before any backend runs: memrel reads memrel_bench's exit codes, and another program's mean
// something else (the sixth pass: /bin/true read as "the backend is unavailable here", exit 0;
// /bin/false as the allocator's failure, exit 3). Its --help is asked, not a new option: ab's
// reference is often an older build, and every memrel_bench's help has begun this way.
std::string bench_program_problem(const std::string& bench) {
  const std::string answer = "Usage: memrel_bench ";
  int out = -1;
  pid_t pid = -1;
  try {
    out = anonymous_file();
    ChildSpec spec;
    spec.args = {bench, "--help"};
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
  const std::string said = read_whole_fd(out);
  close(out);
  if (!ended) return "is not a memrel_bench (asked for its --help, it did not answer within 10 s)";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && said.rfind(answer, 0) == 0) return "";
  return "is not a memrel_bench (asked for its --help, it " +
         std::string(WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                       : "died of signal " + std::to_string(WTERMSIG(status))) +
         (said.empty() ? " and printed nothing)" : " and printed something else)");
}

}  // namespace memrel::cli
