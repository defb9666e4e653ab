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

namespace {

// Whether BENCH lists its benchmarks, without a filter, as a listing ends: exit 0 within 10 s.
// A listing with the filter that crashed or hung is the filter's doing only then.
bool lists_without_a_filter(const std::string& bench) {
  const ProgramAnswer plain = ask_program(
      {bench, "--backend", "null", "--benchmark_list_tests=true"}, false, std::chrono::seconds(10));
  return plain.interrupted == 0 && plain.ended && WIFEXITED(plain.status) &&
         WEXITSTATUS(plain.status) == 0;
}

}  // namespace

std::string bench_filter_problem(const std::string& bench, const std::string& filter) {
  const ProgramAnswer a = ask_program(
      {bench, "--backend", "null", "--benchmark_list_tests=true", "--benchmark_filter=" + filter},
      false, std::chrono::seconds(10));
  // A stop is said by the caller; a program that cannot list (a stub, an older build) is left to
  // the run itself, which says what it does with the filter.
  if (a.interrupted != 0 || !a.start_error.empty()) return "";
  if (a.ended && WIFSIGNALED(a.status)) {
    // Compiling the expression can take the process down (std::regex recurses per group: 20,000
    // nested groups overflow the stack), which bench then blamed on the backend, exit 3, and ab
    // on the reference, exit 4 (the forty-second adversarial pass,
    // c8-bench-nested-regex-filter-blamed-on-backend, c8-ab-nested-regex-filter-exit4). The
    // filter's doing when the same listing without it ends as a listing does.
    if (!lists_without_a_filter(bench)) return "";
    return "matching it against the benchmarks' names " + how_it_ended(a.status) +
           " in memrel_bench (a regular expression nested too deeply?); simplify it";
  }
  // Google Benchmark says an expression it cannot compile on stderr and lists nothing: bench and
  // ab then said the filter "matches no benchmark" (the forty-sixth adversarial pass,
  // c9-bench-filter-invalid-regex).
  if (const std::size_t at = a.complained.find("Could not compile benchmark re: ");
      a.ended && at != std::string::npos) {
    std::string why = a.complained.substr(at + 32);
    why = why.substr(0, why.find('\n'));
    return "not a regular expression memrel_bench can use (" + why.substr(0, 200) + ")";
  }
  if (a.ended) return "";
  // The filter's doing only when the same listing without it ends: a memrel_bench that hangs
  // whatever it is asked was blamed on an ordinary filter, exit 2 (the fifty-first adversarial
  // pass, c8-bench-hanging-bench-blamed-on-filter). Left to the run, which times it out as the
  // backend's failure.
  if (!lists_without_a_filter(bench)) return "";
  return "matching it against the benchmarks' names did not end within 10 s (a regular "
         "expression that backtracks without end?); simplify it";
}

std::string filter_option_text(const std::string& filter) {
  constexpr std::size_t kShown = 80;
  if (filter.size() <= kShown) return "--filter '" + filter + "'";
  return "--filter '" + filter.substr(0, kShown) + "...' (" + std::to_string(filter.size()) +
         " characters)";
}

}  // namespace memrel::cli
