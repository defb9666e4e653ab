#include "cli/python_probe.hpp"

#include <sys/wait.h>

#include "platform/program_question.hpp"

namespace memrel::cli {

std::string python_interpreter_problem(const std::string& python) {
  const std::string answer = "memrel-python-3";
  // A name without / is looked up on PATH's absolute entries.
  const ProgramAnswer a =
      ask_program({python, "-I", "-c",
                   "import sys; sys.stdout.write('memrel-python-%d' % sys.version_info[0])"},
                  true, std::chrono::seconds(10));
  if (!a.start_error.empty()) return "cannot be started (" + a.start_error + ")";
  if (!a.ended) return "did not answer within 10 s";
  if (WIFEXITED(a.status) && WEXITSTATUS(a.status) == 127 && a.printed.empty())
    return "cannot be run (not found, or not executable)";
  if (a.printed.rfind("memrel-python-", 0) != 0)
    return "is not a Python interpreter (asked for its version, it " + how_it_ended(a.status) +
           (a.printed.empty() ? " and printed nothing)" : " and printed something else)");
  if (a.printed != answer) return "is " + a.printed.substr(7) + ", not Python 3";
  return "";
}

}  // namespace memrel::cli
