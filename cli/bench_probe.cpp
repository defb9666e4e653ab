#include "cli/bench_probe.hpp"

#include <sys/wait.h>

#include "platform/one_line_text.hpp"
#include "platform/program_question.hpp"

namespace memrel::cli {

// Is --bench (bench) or --reference-bench / --candidate-bench (ab) a memrel_bench? Asked once
// before any backend runs: memrel reads memrel_bench's exit codes, and another program's mean
// something else (the sixth pass: /bin/true read as "the backend is unavailable here", exit 0;
// /bin/false as the allocator's failure, exit 3). Its --help is asked, not a new option: ab's
// reference is often an older build, and every memrel_bench's help has begun this way.
std::string bench_program_problem(const std::string& bench) {
  const ProgramAnswer a = ask_program({bench, "--help"}, false, std::chrono::seconds(10));
  if (!a.start_error.empty()) return "cannot be started (" + a.start_error + ")";
  if (!a.ended)
    return "is not a memrel_bench (asked for its --help, it did not answer within 10 s)";
  if (WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0 &&
      a.printed.rfind("Usage: memrel_bench ", 0) == 0)
    return "";
  // The dynamic loader's own line when a library it needs is gone (a build's libbenchmark
  // removed by an upgrade): it is a memrel_bench that cannot start, not something else that
  // "printed nothing" (the thirty-first adversarial pass,
  // c8-bench-missing-library-said-not-a-memrel-bench).
  if (WIFEXITED(a.status) && WEXITSTATUS(a.status) == 127 &&
      a.complained.find("error while loading shared libraries") != std::string::npos)
    return "cannot be started: " +
           one_line_text(a.complained.substr(0, a.complained.find('\n')).substr(0, 500));
  return "is not a memrel_bench (asked for its --help, it " + how_it_ended(a.status) +
         (a.printed.empty() ? " and printed nothing)" : " and printed something else)");
}

std::string bench_filter_problem(const std::string& bench, const std::string& filter) {
  const ProgramAnswer a = ask_program(
      {bench, "--backend", "null", "--benchmark_list_tests=true", "--benchmark_filter=" + filter},
      false, std::chrono::seconds(10));
  // A stop is said by the caller; a program that cannot list (a stub, an older build) is left to
  // the run itself, which says what it does with the filter.
  if (a.interrupted != 0 || a.ended || !a.start_error.empty()) return "";
  return "matching it against the benchmarks' names did not end within 10 s (a regular "
         "expression that backtracks without end?); simplify it";
}

}  // namespace memrel::cli
