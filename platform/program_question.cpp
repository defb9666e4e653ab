#include "platform/program_question.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include "platform/child_process.hpp"
#include "platform/interrupt.hpp"

namespace memrel {

ProgramAnswer ask_program(const std::vector<std::string>& args, bool search_path,
                          std::chrono::seconds limit,
                          const std::vector<std::string>& removed_environment_prefixes,
                          const std::map<std::string, std::string>& environment) {
  ProgramAnswer answer;
  int out = -1;
  int err = -1;
  pid_t pid = -1;
  try {
    out = anonymous_file();
    err = anonymous_file();
    ChildSpec spec;
    spec.args = args;
    spec.stdout_fd = out;
    spec.stderr_fd = err;
    spec.search_path = search_path;
    spec.removed_environment_prefixes = removed_environment_prefixes;
    spec.environment = environment;
    pid = start_child(spec);
  } catch (const std::runtime_error& e) {
    if (out >= 0) close(out);
    if (err >= 0) close(err);
    answer.start_error = e.what();
    return answer;
  }
  for (auto deadline = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < deadline;) {
    pid_t r = waitpid(pid, &answer.status, WNOHANG);
    if (r == pid) {
      answer.ended = true;
      break;
    }
    if (r < 0) break;
    if ((answer.interrupted = InterruptRequests::received()) != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!answer.ended) answer.status = kill_child_group(pid);
  answer.printed = read_whole_fd(out);
  answer.complained = read_whole_fd(err);
  close(out);
  close(err);
  return answer;
}

std::string how_it_ended(int status) {
  return WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                           : "died of signal " + std::to_string(WTERMSIG(status));
}

}  // namespace memrel
