#include "cli/python_module.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "cli/exit_codes.hpp"
#include "cli/python_part_leftovers.hpp"
#include "cli/python_probe.hpp"
#include "platform/address_space_limit.hpp"
#include "platform/address_space_reserve.hpp"
#include "platform/atomic_file.hpp"
#include "platform/child_process.hpp"
#include "platform/child_stderr_relay.hpp"
#include "platform/cpu_time_limit.hpp"
#include "platform/file_kind.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/one_line_text.hpp"
#include "platform/own_descriptor_path.hpp"
#include "platform/owned_fd.hpp"
#include "platform/temporary_folder.hpp"

namespace memrel::cli {
namespace {

std::string scripts_dir() { return install_layout().python_dir; }

// The interpreter the environment variable names (MEMREL_PYTHON; `history changes`:
// MEMREL_HISTORY_PYTHON), else the one chosen otherwise (python3; the Otava environment).
std::string python(const PythonInterpreter& interpreter) {
  const char* env = std::getenv(interpreter.variable.c_str());
  return env && *env ? env : interpreter.otherwise;
}

// Where the package is missing, say so instead of letting Python say "No module named".
std::string missing_package(const std::string& package) {
  struct stat st {};
  // The entry runs every package: without it the interpreter said "can't open file" and memrel
  // blamed the interpreter (the seventeenth adversarial pass, c8-missing-entry).
  for (const std::string& file :
       {scripts_dir() + "/" + package + "/__main__.py", scripts_dir() + "/memrel_entry.py"})
    if (stat(file.c_str(), &st) != 0)
      return file + " not found (" + install_layout().description() +
             "): memrel's installation is incomplete";
  return "";
}

// The user's module path as memrel passes it on: the interpreter runs isolated (-I), so it reads
// no PYTHON* variable at all (a PYTHONPATH or PYTHONHOME naming a folder with an `encodings`
// package killed it at start-up); memrel_entry.py adds these entries itself, once the
// interpreter is up.
// MEMREL_PROGRAM_FILES: the files memrel runs, by identity (program_identities), so the Python
// writers refuse them by the C++ side's one definition (docs/inputs.md, "Outputs").
// OPENBLAS_NUM_THREADS=1: numpy's OpenBLAS reserves a buffer per thread when it loads; under a
// memory limit it retried that for ever (`history changes` hung under `ulimit -v`) or printed its
// own line and exit(1) (the tenth adversarial pass, c8-history-changes-ulimit-v-hang,
// c8-import-ulimit-v-openblas). memrel's Python parts do no linear algebra worth a thread; with
// one, numpy's import fails as a Python MemoryError, which memrel_entry.py says in one line.
// MEMREL_OWN_DATA_DIR: memrel's own data (default workloads, backends, advise grid, trace
// sources), no output of any writer, the Python ones as the C++ ones (program_inputs): `report
// --out benchmarks/rep` and `history changes --markdown benchmarks/x.md` wrote there (the
// thirty-second adversarial pass, c1-report-changes-into-memrel-own-folders).
// MEMREL_ENTRY_FD: where memrel_entry.py says it runs (entry_ran_mark), so that an interpreter
// that answers the version probe and then runs nothing of memrel's is told from one that did.
std::string& read_folder(int which) {
  static std::string folders[2];
  return folders[which];
}

std::map<std::string, std::string> python_environment() {
  return {{"MEMREL_PYTHONPATH", python_path("", std::getenv("PYTHONPATH"))},
          {"MEMREL_PROGRAM_FILES", program_identities()},
          {"MEMREL_ENTRY_FD", "3"},
          {"MEMREL_WORKLOADS_DIR", read_folder(0)},
          {"MEMREL_BACKENDS_DIR", read_folder(1)},
          {"MEMREL_LIBRARY_DIR", install_layout().found ? install_layout().library_dir : ""},
          {"MEMREL_OWN_DATA_DIR", install_layout().data_dir},
          {"OPENBLAS_NUM_THREADS", "1"}};
}

// "" when python(interpreter) is a Python 3 interpreter, else the line that says what it is
// instead, naming what chose it: the variable where it is set, else what chose it otherwise (the
// Otava environment: the variable the user never set was named, the twelfth adversarial pass,
// c8-otava-venv-broken-blames-unset-variable).
std::string interpreter_problem(const PythonInterpreter& interpreter) {
  std::string problem = python_interpreter_problem(python(interpreter));
  if (problem.empty()) return "";
  const char* env = std::getenv(interpreter.variable.c_str());
  const std::string chosen_by = env && *env ? interpreter.variable : interpreter.otherwise_is;
  return python(interpreter) + (chosen_by.empty() ? " " : " (" + chosen_by + ") ") + problem;
}

// What stops any Python part before it starts, as one line ending in what to do: a TMPDIR that
// cannot take a file (the version probe writes there; a full one read as "not a Python
// interpreter"), or an interpreter that is not Python 3 (`needs` says what it must have).
std::string start_problem(const std::string& needs, const PythonInterpreter& interpreter) {
  if (std::string tmp = temporary_folder_problem(); !tmp.empty())
    return tmp + "; set TMPDIR to a folder with room that memrel can write in";
  if (std::string problem = interpreter_problem(interpreter); !problem.empty())
    return problem + (needs.empty() ? "" : ": " + needs) + "; set " + interpreter.variable +
           " to choose the interpreter";
  return "";
}

std::vector<std::string> command(const std::string& package, const std::vector<std::string>& args,
                                 const PythonInterpreter& interpreter) {
  return python_module_argv(python(interpreter), scripts_dir(), package, args);
}

}  // namespace

std::string python_path(const std::string& scripts, const char* existing) {
  std::string path = scripts;
  auto append = [&path](const std::string& entry) { path += (path.empty() ? "" : ":") + entry; };
  std::string rest = existing ? existing : "";
  // An absolute entry that is the working folder under another spelling (/a/b/., a link to it)
  // is the working folder all the same: its modules would shadow the standard library's.
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::canonical(".", ec);
  auto is_cwd = [&](const std::string& entry) {
    std::error_code entry_ec;
    std::filesystem::path p = std::filesystem::canonical(entry, entry_ec);
    return !ec && !entry_ec && p == cwd;
  };
  for (std::size_t start = 0; start <= rest.size();) {
    std::size_t colon = rest.find(':', start);
    if (colon == std::string::npos) colon = rest.size();
    std::string entry = rest.substr(start, colon - start);
    // "" and relative entries name the working folder too.
    if (!entry.empty() && entry[0] == '/' && !is_cwd(entry)) append(entry);
    start = colon + 1;
  }
  return path;
}

void tell_python_parts_the_read_folders(const std::string& workloads_dir,
                                        const std::string& backends_dir) {
  read_folder(0) = workloads_dir;
  read_folder(1) = backends_dir;
}

std::vector<std::string> python_verbosity_arguments(int verbosity) {
  if (verbosity < 0) return {"-q"};
  if (verbosity > 0) return {"-v"};
  return {};
}

std::vector<std::string> python_module_argv(const std::string& python, const std::string& scripts,
                                            const std::string& package,
                                            const std::vector<std::string>& args) {
  // -B: a run writes nothing beside memrel's modules, or a user's (`__pycache__` in an installed
  // prefix or a source tree that is only read; the fifty-fourth adversarial pass,
  // c-pycache-beside-modules). The build compiles memrel's own once (cmake/python_bytecode.cmake),
  // as pip does at install, and -B still reads what it compiled.
  std::vector<std::string> argv = {python, "-I", "-B", scripts + "/memrel_entry.py", package};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// A crash under an address-space limit is most likely the limit's (numpy's libraries crash when
// a mapping fails): said beside the signal, so that the line says what to change.
std::string address_space_limit_note() {
  const std::optional<std::uint64_t> limit = address_space_limit_bytes();
  if (!limit) return "";
  return " (under an address-space limit of " + std::to_string(*limit >> 20) +
         " MiB, ulimit -v: likely out of memory)";
}

namespace {

// The lines that begin what a Python interpreter or the libraries it loads write when they fail
// on their own: from the first of them on, the part's stderr is held (ChildStderrRelay).
std::vector<std::string> python_foreign_report_starts() {
  return {"Traceback (most recent call last):",  // an exception nothing caught
          "Fatal Python error",                  // the interpreter's own end (start-up, a crash)
          "Exception ignored",                   // one raised where nothing could catch it
          "Error in sys.excepthook", "Python runtime state",
          "OpenBLAS",  // numpy's BLAS giving up on a memory limit
          // glibc's, as a thread (OpenBLAS's) finds no memory for its thread-local data under a
          // memory limit, then aborts (CI under ulimit -v 100000: two lines, "not found")
          "cannot allocate memory for thread-local data", "Segmentation fault",
          "Current thread 0x",  // faulthandler's dump
          "Thread 0x"};
}

// A Python part starts with its address-space limit a reserve below memrel's, which memrel gives
// back while it waits to a process of the part that has come to its limit: CPython may otherwise
// loop for ever there (platform/address_space_reserve.hpp). MEMREL_ADDRESS_SPACE_LIMIT tells the
// part the user's limit, for its words.
class PartReserve {
 public:
  void apply(ChildSpec& spec) const {
    if (!reserved_) return;
    spec.address_space_soft_limit = *reserved_;
    spec.environment["MEMREL_ADDRESS_SPACE_LIMIT"] = std::to_string(limit());
  }
  std::function<void()> watch(pid_t pid) {
    if (!reserved_) return nullptr;
    rescue_.emplace(pid, *reserved_, limit());
    return [this] { rescue_->check(); };
  }
  // The line to say when memrel ended the part, stuck at the limit with its reserve back
  // (AddressSpaceRescue::gave_up); "" when it did not.
  std::string gave_up_line(const std::string& python) const {
    if (!rescue_ || !rescue_->gave_up()) return "";
    return one_line_text(python) + " ran out of memory under an address-space limit of " +
           std::to_string(limit() >> 20) +
           " MiB (ulimit -v) and kept retrying (a library's loop); memrel ended it: raise the "
           "limit";
  }

 private:
  std::uint64_t limit() const { return *reserved_ + kAddressSpaceReserveBytes; }

  std::optional<std::uint64_t> reserved_ = reserved_address_space_limit();
  std::optional<AddressSpaceRescue> rescue_;
};

// What memrel_entry.py writes on MEMREL_ENTRY_FD as it starts.
constexpr const char* kEntryRanMark = "memrel_entry.py ran\n";

bool entry_ran(int fd) { return read_whole_fd(fd).rfind(kEntryRanMark, 0) == 0; }

// What memrel_entry.py writes on MEMREL_ENTRY_FD as the part ends: "memrel_entry.py ended N".
constexpr const char* kEntryEndedMark = "memrel_entry.py ended ";

// The exit code memrel's code ended with, as memrel_entry.py said it; nullopt where it said
// none (killed, or ended some other way).
std::optional<int> entry_ended(int fd) {
  const std::string said = read_whole_fd(fd);
  const std::size_t at = said.find(std::string("\n") + kEntryEndedMark);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t from = at + 1 + std::strlen(kEntryEndedMark);
  const std::size_t end = said.find('\n', from);
  int code = 0;
  const char* first = said.data() + from;
  const char* last = said.data() + (end == std::string::npos ? said.size() : end);
  if (auto [p, ec] = std::from_chars(first, last, code); ec != std::errc() || p != last)
    return std::nullopt;
  return code;
}

// 128 + N is memrel's own only when memrel asked the part to stop (`asked_to_stop`): the part
// is in a group of its own, so no terminal's signal reaches it but through memrel. Otherwise it
// is a wrapper that did not exec and passed on how its Python ended (137: the OOM killer), or a
// signal someone sent the part alone: passed on as memrel's code, it was 137 with no line, or
// 130, "interrupted", when nothing had interrupted memrel (the twentieth adversarial pass,
// c8-python-wrapper-exit*).
bool is_memrel_exit_code(int code, bool asked_to_stop) {
  return code == exit_code::kSuccess || code == exit_code::kUnusableInput ||
         code == exit_code::kInternalError ||
         (asked_to_stop && code >= exit_code::kInterruptedBase);
}

// How the part ended when that was not by one of memrel's exit codes: "exited 1", "ended by
// SIGSEGV".
std::string foreign_end(int status) {
  if (WIFSIGNALED(status)) return "ended by " + signal_name(WTERMSIG(status));
  return "exited " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// An interpreter whose exit is not the one memrel's code ended with (its last word,
// scripts/memrel_entry.py): a wrapper (a shim, `conda run`) that runs Python and then exits as
// it likes. Exit 0 over a refusal wrote nothing, exit 0 (the twenty-seventh
// adversarial pass, c8-python-wrapper-loses-status-exit0-nothing-written); exit 2 after a
// trace, a report or a table was written was "unusable input" with no input named (the
// thirty-third, c8-python-wrapper-exit2-*). What memrel exits with then, and the line that says
// why (empty: the part's own line has said it); nothing when the two agree.
struct WrapperEnd {
  int exit_code;
  std::string why;
};

std::optional<WrapperEnd> wrapper_changed_the_end(const std::string& python, int status,
                                                  std::optional<int> ended) {
  const bool signaled = WIFSIGNALED(status);
  if (!signaled && !WIFEXITED(status)) return std::nullopt;
  const bool exited_0 = !signaled && WEXITSTATUS(status) == exit_code::kSuccess;
  if (!ended) {
    if (!exited_0) return std::nullopt;
    return WrapperEnd{exit_code::kInternalError,
                      python +
                          " exited 0, but memrel's code did not finish (scripts/memrel_entry.py): "
                          "does a wrapper hide how its Python ended?"};
  }
  if (!signaled && WEXITSTATUS(status) == *ended) return std::nullopt;  // as memrel's code ended
  // memrel's code refused or failed (2, 4) and said so in its line: that word stands, one line,
  // whatever the wrapper then did: exit 0, exit 1 (two lines and exit 4: the sixty-second
  // adversarial pass, c8-python-wrapper-exit1-after-refusal-two-lines), a signal ("ended by
  // SIGSEGV" after the refusal: the sixty-third, c8-python-wrapper-segv-after-part-two-lines).
  if (*ended != exit_code::kSuccess && is_memrel_exit_code(*ended, false))
    return WrapperEnd{*ended, ""};
  // A signal after an end memrel's code does not give is left to the rules below.
  if (signaled && *ended != exit_code::kSuccess) return std::nullopt;
  const std::string ended_with = "memrel's code ended with " + std::to_string(*ended);
  if (exited_0)
    return WrapperEnd{exit_code::kInternalError,
                      python + " exited 0, but " + ended_with +
                          " (scripts/memrel_entry.py): does a wrapper hide how its Python ended?"};
  // Any other end after memrel's code ended, success included: a wrapper's exit 3 after a trace
  // was written whole was "the Python part failed" (the sixty-first adversarial pass).
  return WrapperEnd{exit_code::kInternalError,
                    python + " " + foreign_end(status) + ", but " + ended_with +
                        (*ended == exit_code::kSuccess ? ", its outputs in place" : "") +
                        " (scripts/memrel_entry.py): a wrapper changed how its Python ended"};
}

// How a Python part that ran none of memrel's code ended, said after its interpreter's name. A
// stop sent to it alone from outside (SIGTERM, SIGINT, SIGHUP; memrel's own are passed on and
// said above) is said as such: it was blamed on the interpreter, "is it a Python interpreter
// that can start?" (the forty-second adversarial pass,
// c8-python-part-sigterm-blamed-on-interpreter).
std::string ended_before_memrels_code(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGTERM || signal == SIGINT || signal == SIGHUP)
      return "was stopped by " + signal_name(signal) +
             " from outside before memrel's code ran (scripts/memrel_entry.py); not the "
             "interpreter's failure";
  }
  return foreign_end(status) +
         " without running memrel's code (scripts/memrel_entry.py); is it a Python interpreter "
         "that can start?";
}

// What the part left held (ChildStderrRelay) says it ran out of memory: a MemoryError raised
// while one was being said, OpenBLAS giving up on its buffers.
bool says_out_of_memory(const std::string& held) {
  return held.find("MemoryError") != std::string::npos ||
         held.find("OpenBLAS") != std::string::npos ||
         held.find("out of memory") != std::string::npos ||
         held.find("Cannot allocate memory") != std::string::npos ||
         held.find("cannot allocate memory") != std::string::npos;
}

// The lines of `held` that memrel's code wrote ("memrel report: ...").
std::string memrels_lines(const std::string& held) {
  std::string kept;
  for (std::size_t start = 0; start < held.size();) {
    std::size_t end = held.find('\n', start);
    end = end == std::string::npos ? held.size() : end + 1;
    if (held.compare(start, 7, "memrel ") == 0) kept.append(held, start, end - start);
    start = end;
  }
  return kept;
}

// For a part that failed (not by one of memrel's exit codes) under an address-space limit, with
// a signal or a held report of running out: the line that says so, else "". The machine's limit,
// not a bug: the traceback of a MemoryError raised while the part was saying one (CI under
// ulimit -v 100000) or OpenBLAS's own line help no one.
// Any other failure there is most likely the limit's too, and said so: numpy's C code that ran
// out mid-import raised "SystemError: error return without exception set" (CI under ulimit -v
// 100000, a 26-line traceback).
std::string out_of_memory_line(const std::string& python, int status, const std::string& held) {
  const std::optional<std::uint64_t> limit = address_space_limit_bytes();
  if (!limit) return "";
  const std::string where = " an address-space limit of " + std::to_string(*limit >> 20) +
                            " MiB (ulimit -v; it " + foreign_end(status) + ")";
  if (WIFSIGNALED(status) || says_out_of_memory(held))
    return one_line_text(python) + " ran out of memory under" + where + ": raise the limit";
  return one_line_text(python) + " failed under" + where +
         ", most likely out of memory: raise the limit";
}

// For a part killed by the CPU-time limit (SIGXCPU at the soft limit, SIGKILL at the hard one),
// the line that names it, as a cell's reason does; else "". It was "python3 ended by SIGKILL"
// (the fifty-third adversarial pass, c8-cpu-limit-python-part-not-named).
std::string cpu_time_line(const std::string& python, int status) {
  if (!WIFSIGNALED(status)) return "";
  const CpuTimeLimit cpu = cpu_time_limit();
  const int signal = WTERMSIG(status);
  const std::optional<std::uint64_t> seconds = signal == SIGXCPU   ? cpu.soft_seconds
                                               : signal == SIGKILL ? cpu.hard_seconds
                                                                   : std::nullopt;
  if (!seconds) return "";
  if (signal == SIGXCPU)
    return one_line_text(python) + " ran out of the CPU-time limit of " + std::to_string(*seconds) +
           " s (ulimit -t; it ended by SIGXCPU): raise the limit";
  return one_line_text(python) + " was killed (SIGKILL) under a hard CPU-time limit of " +
         std::to_string(*seconds) + " s (ulimit -t), most likely by it: raise the limit";
}

// A stop that someone sent the part alone (memrel asked nothing), which memrel's code took as
// a request, said ("stopped by SIGTERM; nothing written") and ended on with 128 + N: its line is
// the one line; a second, "exited 143, which is none of memrel's exit codes", said the same
// thing as a failure of the part (the twenty-seventh adversarial pass,
// c9-python-part-sigterm-two-lines). Not success, and no regression: exit 4.
bool stopped_alone(int status, std::optional<int> ended) {
  return WIFEXITED(status) && WEXITSTATUS(status) > exit_code::kInterruptedBase && ended &&
         *ended == WEXITSTATUS(status);
}

}  // namespace

int python_exit_code(const std::string& who, const std::string& python, int status, int passed_on,
                     const std::string& held, bool entry_ran, std::optional<int> ended) {
  const bool own_code =
      WIFEXITED(status) && is_memrel_exit_code(WEXITSTATUS(status), passed_on != 0);
  if (passed_on != 0) {
    // The user's request: what the part wrote after it (a KeyboardInterrupt's traceback from
    // inside the interpreter's start-up, "Exception ignored" at its exit) is the request's echo,
    // not news. The part's own exit code says how far it got.
    if (own_code) return WEXITSTATUS(status);
    if (WIFSIGNALED(status) && WTERMSIG(status) == passed_on)
      // The user's stop, not the interpreter's failure: "<python> ended by SIGTERM" blamed it
      // (the fifty-first adversarial pass, c8-sigterm-at-part-start-blames-python).
      std::cerr << who << ": stopped by " << signal_name(passed_on) << "; "
                << (entry_ran ? "it came before memrel's code said how it ended (an output is "
                                "whole or absent)"
                              : "it came before memrel's code started: nothing written")
                << "\n";
    else if (ended)
      // The request came as the interpreter was ending, after memrel's code had (its last
      // word said): "it was still starting" was untrue (the twenty-eighth adversarial pass,
      // c9-trace-import-late-sigterm-says-starting).
      std::cerr << who << ": stopped by " << signal_name(passed_on) << " as "
                << one_line_text(python) << " was ending (" << foreign_end(status)
                << "); memrel's code had ended with " << *ended
                << (*ended == 0 ? ", its outputs in place" : "") << "\n";
    else if (entry_ran)
      std::cerr << who << ": stopped by " << signal_name(passed_on) << "; " << one_line_text(python)
                << " " << foreign_end(status)
                << " before memrel's code said how it ended (an output is whole or absent)\n";
    else
      std::cerr << who << ": stopped by " << signal_name(passed_on) << "; " << one_line_text(python)
                << " " << foreign_end(status)
                << " before memrel's code could clean up (it was still starting)\n";
    return exit_code::kInterruptedBase + passed_on;
  }
  if (own_code && !entry_ran) {
    // It answered the version probe as Python does and then ran none of memrel's code: exit 0
    // with nothing written read as success (the thirteenth adversarial pass,
    // c8-fakepy-exit0-*).
    // What it wrote is not memrel's to show: one line (the fourteenth adversarial pass,
    // c8-fakepy-traceback-relayed).
    // Unless memrel_entry.py itself said why it ran nothing (a wrapper closed the descriptor
    // memrel hears the part's end on): then its line is the one line.
    if (const std::string own = memrels_lines(held); !own.empty()) {
      std::cerr << one_line_text(own.substr(0, own.find('\n'))) << "\n";
      return exit_code::kInternalError;
    }
    std::cerr << who << ": " << one_line_text(python) << " exited " << WEXITSTATUS(status)
              << " without running memrel's code (scripts/memrel_entry.py); is it a Python "
                 "interpreter?\n";
    return exit_code::kInternalError;
  }
  // Whatever it exited with, once memrel's code has said how it ended: a wrapper's exit 3 after
  // a trace was written whole was "the Python part failed" (the sixty-first adversarial pass,
  // c8-python-wrapper-exit3-after-success-says-failed).
  if (own_code || ended) {
    if (std::optional<WrapperEnd> w =
            wrapper_changed_the_end(one_line_text(python), status, ended)) {
      std::cerr << held;
      if (!w->why.empty()) std::cerr << who << ": " << w->why << "\n";
      return w->exit_code;
    }
  }
  if (own_code) {
    // Under an address-space limit, a library's own complaint of running out ("OpenBLAS error:
    // Memory allocation still failed", from a report's chart worker) came before the part's line
    // that says the limit: two lines for one failure. The part's line is kept.
    if (WEXITSTATUS(status) == exit_code::kInternalError && address_space_limit_bytes() &&
        says_out_of_memory(held) && !memrels_lines(held).empty())
      std::cerr << memrels_lines(held);
    else
      std::cerr << held;
    return WEXITSTATUS(status);
  }
  if (stopped_alone(status, ended)) {
    std::cerr << held;
    return exit_code::kInternalError;
  }
  if (std::string line = out_of_memory_line(python, status, held); !line.empty()) {
    std::cerr << who << ": " << line << "\n";
    return exit_code::kInternalError;
  }
  if (std::string line = cpu_time_line(python, status); !line.empty()) {
    std::cerr << who << ": " << line << "\n";
    return exit_code::kInternalError;
  }
  if (!entry_ran) {
    // Its traceback is not memrel's code's: an interpreter that cannot import what its own
    // start-up needs, a wrapper that fails (the fifteenth adversarial pass,
    // c8-mempython-traceback-*: four lines, the last saying "the Python part failed").
    std::cerr << who << ": " << one_line_text(python) << " " << ended_before_memrels_code(status)
              << "\n";
    return exit_code::kInternalError;
  }
  // 1 is "regression" here; an uncaught exception or an interpreter that gave up says 1 too. A
  // bug's traceback stays: someone must read it.
  std::cerr << held << who << ": " << one_line_text(python) << " " << foreign_end(status);
  if (WIFEXITED(status))
    std::cerr << ", which is none of memrel's exit codes (the Python part failed)\n";
  else
    std::cerr << address_space_limit_note() << "\n";
  return exit_code::kInternalError;
}

int run_python_command(const std::string& who, const std::string& package,
                       const std::vector<std::string>& args, const std::string& needs,
                       const PythonInterpreter& interpreter) {
  // From the start: a signal during the checks below (the version probe takes a while on a busy
  // machine) is a request to stop like any other, not the default death without a word.
  InterruptRequests requests;
  if (std::string missing = missing_package(package); !missing.empty()) {
    std::cerr << who << ": " << one_line_text(missing) << "\n";
    return exit_code::kInternalError;
  }
  std::string problem = start_problem(needs, interpreter);
  if (int signal = InterruptRequests::received(); signal != 0) {  // during the version probe
    std::cerr << who << ": interrupted by " << signal_name(signal) << "; nothing run\n";
    return exit_code::kInterruptedBase + signal;
  }
  if (!problem.empty()) {
    std::cerr << who << ": " << one_line_text(problem) << "\n";
    return exit_code::kInternalError;
  }
  ChildSpec spec;
  // A path through memrel's own descriptors (`report /dev/stdin < run.json`) is passed on as the
  // file it names here: in the part, /dev/stdin is the part's own standard input, and the user's
  // regular file was said to be "a character device" (the thirty-fourth adversarial pass,
  // c10-report-dev-stdin-told-char-device).
  // An input only: an output so spelled is a symbolic link, which every writer refuses, and
  // passed on as the file behind it the Python writers wrote through it (the thirty-seventh
  // adversarial pass, c2-python-writers-follow-proc-fd-link). The Python parts' outputs are the
  // word after these options (`--out=PATH` is one word, passed as it is).
  std::vector<std::string> passed;
  bool output_next = false;
  for (const std::string& arg : args) {
    passed.push_back(output_next ? arg : file_behind_own_descriptor(arg));
    // One with no file behind it (a pipe, a socket) would be the part's own descriptor there,
    // its /dev/null "a character device": named here as what it is in memrel, as the C++
    // readers name it (the sixty-third adversarial pass, c7-dev-stdin-pipe-told-char-device).
    // So is a device behind it, by the name given: `report /dev/stdin < /dev/null` was
    // "/dev/null: a character device", a file never named (the sixty-sixth,
    // c10-report-names-stdin-target).
    struct stat st {};
    if (!output_next && through_own_descriptor(arg) && stat(arg.c_str(), &st) == 0 &&
        !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      std::cerr << who << ": " << one_line_text(arg) << ": " << file_kind_name(st.st_mode)
                << ", not a regular file: an input must be a regular file\n";
      return exit_code::kUnusableInput;
    }
    output_next = arg == "-o" || arg == "--out" || arg == "--markdown";
  }
  spec.args = command(package, passed, interpreter);
  spec.search_path = true;
  spec.stdout_fd = STDOUT_FILENO;
  spec.environment = python_environment();
  // A group of its own: a signal the terminal or anyone gives us is passed on once, below, and
  // the kernel's parent-death signal ends it if we are killed outright.
  spec.own_process_group = true;
  PartReserve reserve;
  reserve.apply(spec);
  if (int signal = InterruptRequests::received(); signal != 0) {
    std::cerr << who << ": interrupted by " << signal_name(signal) << "; nothing run\n";
    return exit_code::kInterruptedBase + signal;
  }
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = -1;
  std::optional<ChildStderrRelay> relay;
  OwnedFd entry_mark;
  try {
    entry_mark = OwnedFd(anonymous_file());
    spec.fd3 = entry_mark.get();
    relay.emplace(python_foreign_report_starts());
    relay->hold_until([mark = entry_mark.get()] { return entry_ran(mark); });
    spec.stderr_fd = relay->child_end();
    pid = start_child(spec);
    relay->child_started();
  } catch (const ChildStartError& e) {
    std::cerr << who << ": " << one_line_text(e.what()) << ": " << needs << "\n";
    return exit_code::kInternalError;
  } catch (const std::runtime_error& e) {
    std::cerr << who << ": cannot run " << one_line_text(spec.args[0]) << " (" << e.what() << ")"
              << address_space_limit_note() << ": " << needs << "\n";
    return exit_code::kInternalError;
  }
  int passed_on = 0;
  bool killed = false;
  const int status =
      wait_child_or_stop(pid, spec.own_process_group, &passed_on, &killed, reserve.watch(pid));
  // What the part started and left in its group ends with it, as a cell's does: a wrapper
  // interpreter (a shim) that left a process behind outlived memrel (the twelfth adversarial
  // pass, c8-python-grandchild-outlives). Before the relay finishes: such a process may hold its
  // end of the pipe.
  kill(-pid, SIGKILL);
  // What it made and named, killed before it could remove it (cli/python_part_leftovers.hpp), or
  // ended without the descriptors to remove it: a report under `ulimit -n 9` exited 4 "nothing
  // written" beside its DIR.tmp-PID (the forty-sixth adversarial pass,
  // c8-report-emfile-leaves-tmp-folder). Only what is still the part's half-made output goes.
  remove_leftovers(read_whole_fd(entry_mark.get()));
  const std::string held = relay->finish();
  if (std::string line = reserve.gave_up_line(spec.args[0]); !line.empty()) {
    std::cerr << who << ": " << line << "\n";
    return exit_code::kInternalError;
  }
  if (killed) {
    // Busy in C code (an unpickler hashing a shared tuple), it never saw the request.
    std::cerr << who << ": stopped by " << signal_name(passed_on) << "; "
              << one_line_text(spec.args[0]) << " did not end within " << kStopGraceSeconds
              << " s of it and was killed\n";
    return exit_code::kInterruptedBase + passed_on;
  }
  // 127 from an interpreter that is there and runs: it gave up out of memory (glibc's TLS abort
  // under `ulimit -v`), not "not found".
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && access(spec.args[0].c_str(), X_OK) == 0 &&
      address_space_limit_bytes()) {
    std::cerr << who << ": " << out_of_memory_line(spec.args[0], status, held) << "\n";
    return exit_code::kInternalError;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    std::cerr << who << ": cannot run " << one_line_text(spec.args[0])
              << " (not found or not executable): " << needs << "\n";
    return exit_code::kInternalError;
  }
  return python_exit_code(who, spec.args[0], status, passed_on, held, entry_ran(entry_mark.get()),
                          entry_ended(entry_mark.get()));
}

PythonResult run_python_module(const std::string& package, const std::vector<std::string>& args) {
  PythonResult result;
  if (std::string missing = missing_package(package); !missing.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = missing;
    return result;
  }
  const std::string problem = start_problem("", PythonInterpreter{});
  // A request to stop during the version probe ended the probe, not a slow interpreter (advise
  // said "did not answer within 10 s", exit 4: the twenty-fourth adversarial pass,
  // c9-sigterm-advise-during-python-probe).
  if (int signal = InterruptRequests::received(); signal != 0)
    throw Interrupted(signal,
                      "interrupted by " + signal_name(signal) + " before " + package + " ran");
  if (!problem.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = problem;
    return result;
  }
  ChildSpec spec;
  spec.args = command(package, args, PythonInterpreter{});
  spec.search_path = true;
  // A group of its own, as run_python_command's: a request to stop is passed on to it
  // (wait_child_or_stop), and what it leaves in its group is ended once it has ended.
  spec.own_process_group = true;
  spec.environment = python_environment();
  PartReserve reserve;
  reserve.apply(spec);
  int status = 0;
  OwnedFd entry_mark;
  try {
    std::cout.flush();
    std::cerr.flush();
    int err = anonymous_file();
    spec.stderr_fd = err;
    entry_mark = OwnedFd(anonymous_file());
    spec.fd3 = entry_mark.get();
    int stopped_by = 0;
    bool killed = false;
    const pid_t pid = start_child(spec);
    status =
        wait_child_or_stop(pid, spec.own_process_group, &stopped_by, &killed, reserve.watch(pid));
    kill(-pid, SIGKILL);
    // As in run_python_command: what it named and could not remove.
    remove_leftovers(read_whole_fd(entry_mark.get()));
    result.error_text = read_whole_fd(err);
    close(err);
    if (std::string line = reserve.gave_up_line(spec.args[0]); !line.empty()) {
      result.exit_code = exit_code::kInternalError;
      result.error_text = line;
      return result;
    }
    // A request to stop (SIGINT, SIGTERM, SIGHUP) ends the caller too; the child, asked in turn,
    // had its grace and was killed if it did not end (wait_child_or_stop).
    if (stopped_by != 0)
      throw Interrupted(stopped_by, "interrupted by " + signal_name(stopped_by) +
                                        " while running " + package +
                                        (killed ? " (killed: it did not end within " +
                                                      std::to_string(kStopGraceSeconds) + " s)"
                                                : ""));
  } catch (const Interrupted&) {
    throw;
  } catch (const ChildStartError& e) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = e.what();
    return result;
  } catch (const std::runtime_error& e) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = std::string("cannot run ") + spec.args[0] + ": " + e.what();
    return result;
  }
  while (!result.error_text.empty() && result.error_text.back() == '\n')
    result.error_text.pop_back();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : exit_code::kInternalError;
  if (result.exit_code == exit_code::kRegression) result.exit_code = exit_code::kInternalError;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && result.error_text.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = "cannot run " + spec.args[0] + " (not found or not executable)";
    return result;
  }
  // A request to stop was thrown above as Interrupted: no 128 + N here is memrel's own.
  const bool own_code = WIFEXITED(status) && is_memrel_exit_code(WEXITSTATUS(status), false);
  if (own_code && !entry_ran(entry_mark.get())) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = spec.args[0] + " exited " + std::to_string(WEXITSTATUS(status)) +
                        " without running memrel's code (scripts/memrel_entry.py); is it a "
                        "Python interpreter?";
    return result;
  }
  // How memrel's code said it ended, read once for the two checks below.
  const std::optional<int> ended = entry_ended(entry_mark.get());
  // A wrapper that changed how memrel's code ended: as python_exit_code says it.
  if (own_code || ended) {
    if (std::optional<WrapperEnd> w = wrapper_changed_the_end(spec.args[0], status, ended)) {
      result.exit_code = w->exit_code;
      if (!w->why.empty()) result.error_text += (result.error_text.empty() ? "" : "; ") + w->why;
      return result;
    }
  }
  if (!own_code && stopped_alone(status, ended)) {
    result.exit_code = exit_code::kInternalError;
    return result;
  }
  if (std::string line = own_code ? ""
                                  : out_of_memory_line(spec.args[0], status,
                                                       held_part(result.error_text,
                                                                 python_foreign_report_starts()));
      !line.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = line;
    return result;
  }
  if (!own_code && !entry_ran(entry_mark.get())) {  // as python_exit_code says it
    result.exit_code = exit_code::kInternalError;
    result.error_text = spec.args[0] + " " + ended_before_memrels_code(status);
    return result;
  }
  if (!own_code) {
    // How the part ended, with the interpreter named, after the part's own last line (callers
    // keep the last line): a wrapper's exit 1 with nothing on stderr was "importing FILE: no
    // message" in `run -w snap.pickle` (the twentieth adversarial pass,
    // c8-run-pickle-python-exit1-says-nothing).
    result.exit_code = exit_code::kInternalError;
    result.error_text +=
        (result.error_text.empty() ? "" : "; ") + spec.args[0] + " " + foreign_end(status) +
        (WIFEXITED(status) ? ", which is none of memrel's exit codes (the Python part failed)"
                           : "");
  }
  return result;
}

}  // namespace memrel::cli
