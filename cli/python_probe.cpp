#include "cli/python_probe.hpp"

#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <optional>

#include "platform/address_space_limit.hpp"
#include "platform/memory_limits.hpp"
#include "platform/program_question.hpp"

namespace memrel::cli {
namespace {

// Below this many descriptors an interpreter that does not answer is most likely starved of
// them: Python's start-up alone opens a dozen files.
constexpr rlim_t kFewestOpenFiles = 16;

}  // namespace

std::string python_interpreter_problem(const std::string& python) {
  // A name without / is looked up on PATH's absolute entries.
  const ProgramAnswer a =
      ask_program({python, "-I", "-c",
                   "import sys; sys.stdout.write('memrel-python-%d.%d' % sys.version_info[:2])"},
                  true, std::chrono::seconds(10));
  // Under `ulimit -v` the interpreter may fail to start at all: said as the limit's, not as "not
  // a Python interpreter" (the fifteenth adversarial pass, c8-ulimit-v-* arguable).
  // And under `ulimit -d`, which bounds every private writable mapping: the interpreter's loader
  // failed, and a working python3 was "cannot be run (not found, or not executable)" (the
  // seventy-third adversarial pass, c8-data-limit-python-probe-wrong-words).
  const std::optional<std::uint64_t> address_limit = address_space_limit_bytes();
  const std::optional<std::uint64_t> data_limit = data_limit_bytes();
  const bool limit = address_limit || data_limit;
  const std::string under_limit =
      address_limit ? " under an address-space limit of " + limit_size_text(*address_limit) +
                          " (ulimit -v: most likely out of memory; raise the limit)"
      : data_limit ? " under a data-segment limit of " + limit_size_text(*data_limit) +
                         " (ulimit -d: most likely out of memory; raise the limit)"
                   : "";
  // And under a small open-files limit (`ulimit -n 6`): Python starts, cannot open what its
  // start-up needs, and exits 0 having printed nothing (the nineteenth adversarial pass,
  // c8-ulimit-n-python-misdiagnosed-*).
  rlimit files{};
  const bool few_files = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
                         files.rlim_cur < kFewestOpenFiles;
  const std::string under_files_limit =
      few_files ? " under an open-files limit of " + std::to_string(files.rlim_cur) +
                      " (ulimit -n: too few descriptors to start it; raise the limit)"
                : "";
  if (!a.start_error.empty())
    return "cannot be started (" + a.start_error + ")" + under_limit + under_files_limit;
  if (few_files && a.printed.rfind("memrel-python-", 0) != 0)
    return "did not start (asked for its version, it " + how_it_ended(a.status) +
           (a.printed.empty() ? " and printed nothing)" : " and printed something else)") +
           under_files_limit;
  if (!a.ended) return "did not answer within 10 s";
  if (a.printed.rfind("memrel-python-", 0) != 0 && limit && a.printed.empty())
    return "did not start (asked for its version, it " + how_it_ended(a.status) +
           " and printed nothing)" + under_limit;
  if (WIFEXITED(a.status) && WEXITSTATUS(a.status) == 127 && a.printed.empty())
    return "cannot be run (not found, or not executable)";
  if (a.printed.rfind("memrel-python-", 0) != 0)
    return "is not a Python interpreter (asked for its version, it " + how_it_ended(a.status) +
           (a.printed.empty() ? " and printed nothing)" : " and printed something else)");
  // "memrel-python-3.11": an older Python 3 than memrel's parts are written for printed a
  // traceback of 15 lines (the tenth adversarial pass, c8-memrel-python-old-traceback).
  const std::string version = a.printed.substr(std::string("memrel-python-").size());
  // "3." and a minor of ASCII digits, read whole: sscanf's %d took "3.99999999999999999999999"
  // past an int and said it was older than 3.9 (the forty-second adversarial pass,
  // c8-python-huge-minor-version-said-older).
  const std::string minor_text = version.compare(0, 2, "3.") == 0 ? version.substr(2) : "";
  if (version.compare(0, 2, "3.") != 0) return "is " + a.printed.substr(7) + ", not Python 3";
  if (minor_text.empty() || minor_text.size() > 4 ||
      minor_text.find_first_not_of("0123456789") != std::string::npos)
    return "is " + a.printed.substr(7) + ", not a Python 3 version (3.N)";
  const int minor = std::stoi(minor_text);
  if (minor < kMinimumPythonMinor)
    return "is Python " + version + ", older than the 3." + std::to_string(kMinimumPythonMinor) +
           " memrel's Python parts are written for";
  return "";
}

}  // namespace memrel::cli
