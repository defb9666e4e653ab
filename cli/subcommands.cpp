#include "cli/subcommands.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "cli/number_spelling.hpp"
#include "cli/python_module.hpp"
#include "harness/execution/injected_fault.hpp"
#include "harness/results/results.hpp"
#include "harness/workload/workload.hpp"
#include "harness/workload/workload_files.hpp"
#include "platform/address_space_limit.hpp"
#include "platform/adopted_processes.hpp"
#include "platform/build_identity.hpp"
#include "platform/did_you_mean.hpp"
#include "platform/error_text.hpp"
#include "platform/executable_path.hpp"
#include "platform/install_layout.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/one_line_text.hpp"
#include "platform/run_context.hpp"

namespace memrel::cli {

// Each defined in its own file, cli/<name>_command.cpp.
RunSubcommand attach_list(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_validate(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_run(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_cell(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_compare(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_bench(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_ab(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_history(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_report(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_trace(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_merge(CLI::App& app, const GlobalOptions& global);
RunSubcommand attach_advise(CLI::App& app, const GlobalOptions& global);

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"list", "List backends (with availability here) and workloads", attach_list},
      {"validate", "Check workload files without running them", attach_validate},
      {"run", "Run every (backend, workload) cell, each in its own process", attach_run},
      {"merge", "Join the results of memrel run --shard K/N for every K into one (docs/slurm.md)",
       attach_merge},
      {"cell", "Run one cell in this process (the runner's child; for debugging)", attach_cell},
      {"compare", "Compare a run with a baseline: the regression gate (exit 1 on a regression)",
       attach_compare},
      {"bench",
       "Latency benchmarks (memrel_bench) of a set of backends, one process each, one JSON file "
       "per backend",
       attach_bench},
      {"ab",
       "A reference and a candidate benchmarked interleaved on this machine: the latency gate "
       "for a fleet (exit 1 on a regression)",
       attach_ab},
      {"history", "Results over time in a SQLite database: add runs, show a metric, change points",
       attach_history},
      {"report", "Plots and a report folder (index.html, report.md) from results files",
       attach_report},
      {"trace", "Import a PyTorch snapshot or an RMM log as a trace to replay (docs/traces.md)",
       attach_trace},
      {"advise",
       "The allocator settings for a program: its trace replayed on a sweep of configurations, "
       "the Pareto frontier and one recommendation (docs/advise.md)",
       attach_advise},
  };
  return table;
}

namespace {

// The first word that is not an option (nor the value of a global option): the subcommand.
// Checked before CLI11 parses, which would answer a typo with "A subcommand is required" or
// "The following arguments were not expected".
// The subcommand the command line names (its first word that is no option or option value), or
// "" when none does.
std::string subcommand_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--workloads-dir" || word == "--backends-dir") {
      ++i;
      continue;
    }
    if (!word.empty() && word[0] != '-') return word;
  }
  return "";
}

std::string unknown_subcommand(int argc, char** argv) {
  std::vector<std::string> names;
  for (const Subcommand& s : subcommands()) names.emplace_back(s.name);
  const std::string word = subcommand_word(argc, argv);
  if (word.empty() || std::find(names.begin(), names.end(), word) != names.end()) return "";
  const std::string near = did_you_mean(word, names);
  return "unknown subcommand '" + word + "'" +
         (near.empty() ? "" : "; did you mean " + near + "?") + " (memrel --help lists them)";
}

// A subcommand that hands its arguments to Python (trace, report, history changes) keeps them
// all: with fallthrough, CLI11 would pass them up to memrel, which expects none of them.
void keep_arguments_of_prefix_commands(CLI::App* app) {
  if (app->get_prefix_command()) app->fallthrough(false);
  for (CLI::App* sub : app->get_subcommands({})) keep_arguments_of_prefix_commands(sub);
}

// The first option or positional given an empty value, as one line; "" when none. One rule for
// every option (docs/inputs.md, "Empty values"): an empty string is no value. Taken as "not
// given", `run -o ''` wrote into the default folder, `--shard ''` ran the whole matrix and
// `compare --byte-tolerance ''` kept the default tolerances, each without a word.
std::string empty_value(const CLI::App* app) {
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->count() == 0 || opt->get_expected_max() == 0) continue;  // absent, or a flag
    for (const std::string& value : opt->results()) {
      if (value.empty())
        return opt->get_name() + ": an empty value: give one, or leave the option out";
    }
  }
  for (const CLI::App* sub : app->get_subcommands())
    if (std::string found = empty_value(sub); !found.empty()) return found;
  return "";
}

// -q and -v, which set the one verbosity of the whole command line.
void add_verbosity_flags(CLI::App& app, GlobalOptions& global) {
  app.add_flag_function(
      "-q,--quiet", [&global](std::int64_t) { global.verbosity = -1; },
      "No progress lines (errors and the results' path still print)");
  app.add_flag_function(
      "-v,--verbose", [&global](std::int64_t) { global.verbosity = 1; },
      "A progress line for every cell (default: on a terminal; elsewhere only lines worth "
      "reading)");
}

// On APP and every subcommand below it, so that each one's --help shows them (CLI11 shows only
// an app's own options). A subcommand that hands its arguments to Python is left out: its help
// is the script's, which shows the same two (scripts/memrel_help.py), and the value given
// before it is passed on (python_verbosity_arguments).
void add_verbosity_flags_below(CLI::App* app, GlobalOptions& global) {
  if (app->get_prefix_command()) return;
  add_verbosity_flags(*app, global);
  for (CLI::App* sub : app->get_subcommands({})) add_verbosity_flags_below(sub, global);
}

}  // namespace

namespace {

int run_parsed_command_line(int argc, char** argv);

// Whether stdout is a pipe or socket whose reader has gone: the kernel says so to a poll for
// writing (POLLERR on a pipe without readers, POLLHUP on a socket shut down).
bool standard_output_reader_left() {
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
    return false;
  struct pollfd out {
    STDOUT_FILENO, POLLOUT, 0
  };
  return poll(&out, 1, 0) == 1 && (out.revents & (POLLERR | POLLHUP)) != 0;
}

// What the command printed reached its stdout, or exit 4 with one line: `memrel list >
// /dev/full` exited 0 with nothing written (the fourth pass). Checked once, at the end, for
// every subcommand: a failed write sets the stream's error until then. A command that already
// failed with its one line (exit 2, 4, or interrupted) keeps it: `compare --markdown m.md` under
// `ulimit -f` said "cannot write m.md" and then this too, two lines (the fifth pass, f18).
int checked_stdout(int rc) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && std::cout.good() && !std::ferror(stdout)) return rc;
  // A reader that left (`memrel compare a b | head -1`) is not a failure: what it did not read
  // goes nowhere, and the command's own exit code (a verdict) stands, as for the Python parts.
  // It was exit 4 "cannot write to standard output", or 0, as the reader's timing fell (the
  // fifty-third adversarial pass, c9-closed-stdout-pipe-two-rules).
  if (standard_output_reader_left()) return rc;
  if (rc == exit_code::kUnusableInput || rc == exit_code::kInternalError ||
      rc >= exit_code::kInterruptedBase)
    return rc;
  // The write that failed was an earlier flush, whose errno is gone: a write of no bytes asks
  // the descriptor again (ENOSPC of /dev/full, EBADF of a closed one) and writes nothing; the
  // line had no cause (the sixty-fifth adversarial pass, c8-stdout-full-no-reason).
  int cause = err;
  if (cause == 0 && ::write(STDOUT_FILENO, "", 0) < 0) cause = errno;
  std::cerr << "memrel: cannot write to standard output"
            << (cause ? std::string(" (") + std::strerror(cause) + ")" : std::string()) << "\n";
  return exit_code::kInternalError;
}

// Whether the working folder has a name still (getcwd fails with ENOENT once it was removed).
bool working_folder_exists() {
  char path[4096];
  return getcwd(path, sizeof path) != nullptr || errno != ENOENT;
}

// "memrel: out of memory ..." on stderr with nothing allocated: memory is what ran out.
void say_out_of_memory() {
  char line[256];
  const std::optional<std::uint64_t> limit = address_space_limit_bytes();
  const int n =
      limit ? std::snprintf(line, sizeof line,
                            "memrel: out of memory under an address-space limit of %llu MiB "
                            "(ulimit -v): raise the limit\n",
                            static_cast<unsigned long long>(*limit >> 20))
            : std::snprintf(line, sizeof line, "memrel: out of memory\n");
  if (n > 0 && write(STDERR_FILENO, line, static_cast<std::size_t>(n)) < 0) return;
}

// Out of memory in a destructor (nlohmann::json frees a nested document with a stack it
// allocates) ends in std::terminate, not in a catch: said as every other running out is, exit 4,
// instead of SIGABRT and two lines of the runtime's.
[[noreturn]] void on_terminate() {
  if (std::exception_ptr failure = std::current_exception()) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::bad_alloc&) {
      say_out_of_memory();
      _exit(exit_code::kInternalError);
    } catch (...) {
    }
  }
  std::abort();
}

}  // namespace

namespace {

// A standard stream the caller closed (`>&-`) is held by /dev/null opened the other way round:
// no file memrel opens then takes its number, and a write to it fails (EBADF) as a write to the
// closed one did, said as "cannot write to standard output". Its children get it too: a Python
// part's print() to a closed stdout wrote nothing and it exited 0, `trace show` and `history
// changes` with no result anywhere (the thirty-first adversarial pass,
// c9-python-parts-closed-stdout-exit-0).
void hold_closed_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (held < 0) continue;
    if (held != fd) {
      dup3(held, fd, 0);
      close(held);
    } else {
      fcntl(fd, F_SETFD, 0);  // inherited by the children, as the stream it stands for
    }
  }
}

// Nothing: a write to a pipe whose reader has gone then fails (EPIPE) and is said as any failed
// write, where SIGPIPE killed memrel (exit 141) before `compare --markdown --junit` wrote its files
// (the thirty-first adversarial pass, c8-compare-stdout-pipe-closed-sigpipe-outputs-lost). A
// handler, not SIG_IGN: exec resets it, so cells and programs memrel starts get the default.
void on_broken_pipe(int) {}

}  // namespace

int run_command_line(int argc, char** argv) {
  hold_closed_standard_streams();
  struct sigaction broken_pipe {};
  broken_pipe.sa_handler = on_broken_pipe;
  sigemptyset(&broken_pipe.sa_mask);
  broken_pipe.sa_flags = SA_RESTART;
  sigaction(SIGPIPE, &broken_pipe, nullptr);
  // A write past `ulimit -f` fails with EFBIG, said as every failed write is (one line, exit 4,
  // the temporary file removed), instead of killing memrel with no word (SIGXFSZ, exit 153: the
  // fourth pass). Ignored signals stay ignored across exec: the cells and Python parts too.
  std::signal(SIGXFSZ, SIG_IGN);
  std::set_terminate(on_terminate);
  // Run from a folder removed meanwhile, a relative path was "internal error: filesystem error:
  // cannot make absolute path", and a Python part "not a Python interpreter" (pyenv's shim
  // cannot start there): the twenty-second adversarial pass, c8-deleted-cwd-blames-interpreter.
  // Not in a cell: the runner's own state is said by the runner.
  if (subcommand_word(argc, argv) != "cell" && !working_folder_exists()) {
    std::cerr << "memrel: the working folder no longer exists (removed while in use): cd into a "
                 "folder that exists and run it again\n";
    return exit_code::kInternalError;
  }
  // The environment is input too: said once, before anything runs.
  if (std::string problem = given_commit_problem(); !problem.empty()) {
    std::cerr << "memrel: MEMREL_GIT_COMMIT " << problem << "\n";
    return exit_code::kUnusableInput;
  }
  if (const char* fault = std::getenv("MEMREL_INJECT_FAULT"); fault != nullptr) {
    // A cell is started by a command that checked its files; the cell writes them only new.
    const bool check_files = subcommand_word(argc, argv) != "cell";
    if (std::string problem = injected_fault_problem(fault, check_files); !problem.empty()) {
      std::cerr << "memrel: MEMREL_INJECT_FAULT=" << one_line_text(fault) << ": " << problem
                << "\n";
      return exit_code::kUnusableInput;
    }
  }
  // Whatever memrel's children leave behind ends with memrel (platform/adopted_processes.hpp).
  // Not in a cell or a zygote, memrel's own internal parts: a zygote reaps every child it has
  // and reports each to the runner, which knows only the cells it asked for.
  std::optional<AdoptedProcesses> adopted;
  if (subcommand_word(argc, argv) != "cell") adopted.emplace();
  try {
    return checked_stdout(run_parsed_command_line(argc, argv));
  } catch (const std::bad_alloc&) {
    // Anywhere, even before a subcommand runs (under `ulimit -v 15000` the option parser itself
    // ran out: std::terminate, SIGABRT, the fifteenth adversarial pass, c8-ulimit-v-*-abort).
    // Said without allocating.
    say_out_of_memory();
    return exit_code::kInternalError;
  }
}

namespace {

int run_parsed_command_line(int argc, char** argv) {
  if (std::string unknown = unknown_subcommand(argc, argv); !unknown.empty()) {
    std::cerr << "memrel: " << one_line_text(unknown) << "\n";
    return exit_code::kUnusableInput;
  }
  CLI::App app{"memrel: how much GPU memory really returns to the device, how fast, at what cost."};
  app.footer(exit_code::kExitCodesHelp);
  // One line for a usage error, as for every other refusal (docs/inputs.md): CLI11's own adds a
  // second, "Run with --help for more information."
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    // "memrel: " as every other error of memrel's starts, so that a CI log is searchable.
    return "memrel: " + one_line_text(e.what()) + " (run with --help for more information)\n";
  });
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       "memrel " + memrel_version() + " (commit " + memrel_build_commit() + ")");
  GlobalOptions global{install_layout().data_dir + "/workloads",
                       install_layout().data_dir + "/backends"};
  app.add_option("--workloads-dir", global.workloads_dir, "Folder of workload JSON files")
      ->capture_default_str();
  app.add_option("--backends-dir", global.backends_dir,
                 "Folder of backend files (memrel.backend/1, docs/pluggable-backends.md)")
      ->capture_default_str();
  // Before or after the subcommand: `memrel run -q` as well as `memrel -q run`.
  add_verbosity_flags(app, global);
  app.fallthrough();

  std::vector<std::pair<CLI::App*, RunSubcommand>> runners;
  for (const Subcommand& s : subcommands()) {
    CLI::App* sub = app.add_subcommand(s.name, s.description);
    runners.emplace_back(sub, s.attach(*sub, global));
    keep_arguments_of_prefix_commands(sub);
    add_verbosity_flags_below(sub, global);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A number CLI11 could not read as its option's type ("1e1", "5.0" for a whole number) was
    // "Value 1e1 not in range 5 to 1000", untrue of 10 (the fifty-first adversarial pass,
    // c4-ab-rounds-1e1-said-out-of-range): its spelling is what is wrong, said as below.
    // A decimal's too, where CLI11 could not read or take a value (`--min-time 0.1s` was "Value
    // 0.1s not in range 0.000001 to 86400": the fifty-eighth adversarial pass,
    // c4-min-time-misspelled-said-out-of-range); another error (an unknown option) is CLI11's,
    // and so is a threshold's own validator's line, which says more ("'nan' is not a finite
    // number from 1e-09 to 0.5").
    const bool a_value_refused = dynamic_cast<const CLI::ConversionError*>(&e) != nullptr ||
                                 (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr &&
                                  std::string(e.what()).find("not in range") != std::string::npos);
    if (std::string number = misspelled_number(&app, !a_value_refused); !number.empty()) {
      std::cerr << "memrel: " << one_line_text(number) << "\n";
      return exit_code::kUnusableInput;
    }
    int rc = app.exit(e);
    return rc == 0 ? exit_code::kSuccess : exit_code::kUnusableInput;
  }
  if (std::string empty = empty_value(&app); !empty.empty()) {
    std::cerr << "memrel: " << one_line_text(empty) << "\n";
    return exit_code::kUnusableInput;
  }
  if (std::string number = misspelled_number(&app); !number.empty()) {
    std::cerr << "memrel: " << one_line_text(number) << "\n";
    return exit_code::kUnusableInput;
  }
  // memrel finds its own files (workloads, scripts, memrel_bench) and starts its cells through
  // /proc/self/exe: without /proc (a container or chroot that lacks it) a run said
  // "--workloads-dir: cannot read", exit 2, of an option never given (the twenty-fourth
  // adversarial pass, c8-no-proc-run-blames-workloads-dir).
  if (executable_path().empty()) {
    std::cerr << "memrel: cannot read /proc/self/exe, through which memrel finds its own files "
                 "and starts its cells: is /proc mounted?\n";
    return exit_code::kInternalError;
  }
  // A --backends-dir given is a folder memrel can read: a file or a missing folder was taken as
  // a folder with no backend file, exit 0 (the eighth adversarial pass, c8-backends-dir-*), where
  // --workloads-dir said so. The default may be absent (an install without backend files), and
  // a cell is handed its run's folder, the default too.
  if (app.get_option("--backends-dir")->count() > 0 &&
      global.backends_dir != install_layout().data_dir + "/backends") {
    std::error_code ec;
    if (!std::filesystem::is_directory(global.backends_dir, ec)) {
      std::cerr << "memrel: "
                << one_line_text("--backends-dir: cannot read '" + global.backends_dir + "': " +
                                 (ec ? ec.message()
                                  : std::filesystem::exists(global.backends_dir, ec)
                                      ? std::string("Not a directory")
                                      : std::string("No such file or directory")))
                << "\n";
      return exit_code::kUnusableInput;
    }
  }

  tell_python_parts_the_read_folders(global.workloads_dir, global.backends_dir);
  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return run();
    }
    throw std::logic_error("a subcommand was parsed that nothing handles");
  } catch (const Interrupted& e) {
    std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
    return exit_code::kInterruptedBase + e.signal();
  } catch (const WorkloadError& e) {
    std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
    return exit_code::kUnusableInput;
  } catch (const ResultsError& e) {
    std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
    return exit_code::kUnusableInput;
  } catch (const WorkloadsFolderUnreadable& e) {
    // Not given, the folder is the installation's own: a memrel binary copied alone blamed an
    // option nobody gave, exit 2 (arguable in the thirty-third adversarial pass,
    // c8-copied-binary-list-blames-option), where its Python parts say the installation is
    // incomplete, exit 4.
    // Out of descriptors, it is the limit, not the installation nor the option.
    if (e.error() == EMFILE) {
      std::cerr << "memrel: " << one_line_text(e.folder())
                << " cannot be read: " << error_text(e.error()) << "\n";
      return exit_code::kInternalError;
    }
    if (app.get_option("--workloads-dir")->count() == 0) {
      std::cerr << "memrel: " << one_line_text(e.folder()) << " cannot be read ("
                << install_layout().description() << "): memrel's installation is incomplete\n";
      return exit_code::kInternalError;
    }
    std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
    return exit_code::kUnusableInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
    return exit_code::kUnusableInput;
  } catch (const MachineStateError& e) {
    std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
    return exit_code::kInternalError;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that goes round in a loop of symbolic links is the path's fault: a
    // run or bench with -o under one said "internal error", exit 4 (the twenty-fifth adversarial
    // pass, c2-*-under-symlink-loop).
    if (e.code() == std::errc::too_many_symbolic_link_levels) {
      std::cerr << "memrel: " << one_line_text(e.path1().string()) << ": " << e.code().message()
                << " (a loop of symbolic links)\n";
      return exit_code::kUnusableInput;
    }
    // And a name longer than the file system takes (`-w` of 300 letters looked for in the
    // workloads folder: c10-run-w-long-name-exit4).
    if (e.code() == std::errc::filename_too_long) {
      std::cerr << "memrel: " << one_line_text(e.path1().string()) << ": " << e.code().message()
                << "\n";
      return exit_code::kUnusableInput;
    }
    std::cerr << "memrel: internal error: " << one_line_text(e.what()) << "\n";
    return exit_code::kInternalError;
  } catch (const std::bad_alloc&) {
    throw;  // said in run_command_line, without allocating
  } catch (const std::exception& e) {
    std::cerr << "memrel: internal error: " << one_line_text(e.what()) << "\n";
    return exit_code::kInternalError;
  }
}

}  // namespace

}  // namespace memrel::cli
