// memrel's Python packages (scripts/<package>: the report, the trace importer), run from where
// this memrel finds them (platform/install_layout: the build tree's scripts/ or an installed
// prefix's share/memrel/python), with $MEMREL_PYTHON (default python3) and that folder
// the absolute entries of any PYTHONPATH already set after it. Nothing from the user's
// folders is importable (docs/inputs.md, "Code"): the package runs through memrel_entry.py,
// not `python3 -m`, which puts the working folder first on the module path.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace memrel::cli {

// The argv policy, in one place: {python, -I, SCRIPTS/memrel_entry.py, package, args...}. -I:
// no PYTHON* variable, no user site, no script folder on the path; memrel_entry.py puts
// SCRIPTS and MEMREL_PYTHONPATH (python_path("", PYTHONPATH)) on it itself.
std::vector<std::string> python_module_argv(const std::string& python, const std::string& scripts,
                                            const std::string& package,
                                            const std::vector<std::string>& args);

// SCRIPTS (may be ""), then the absolute entries of EXISTING (a PYTHONPATH; null or empty: none).
// An empty or relative entry stands for the working folder, so it is dropped.
std::string python_path(const std::string& scripts, const char* existing);

// The folders memrel reads whole (--workloads-dir, --backends-dir), told to every Python part
// (MEMREL_WORKLOADS_DIR, MEMREL_BACKENDS_DIR), so that its writers refuse an output their readers
// would take, as the C++ writers do (cli/read_folders.hpp): `trace import -o BACKENDS/t.json`
// and `history changes --markdown WORKLOADS/c.json` were written, and every later run refused
// them as a backend file or a workload (the seventeenth adversarial pass, c1-*-into-*-dir).
void tell_python_parts_the_read_folders(const std::string& workloads_dir,
                                        const std::string& backends_dir);

// The -q or -v given to memrel before a Python subcommand, as that script's own argument
// (scripts/memrel_help.py gives every script both): {"-q"} for -1, {"-v"} for 1, none for 0.
std::vector<std::string> python_verbosity_arguments(int verbosity);

// Which interpreter runs a Python part: the one the environment variable `variable` names, else
// `otherwise` (python3; for `history changes`, the Otava environment's), which `otherwise_is`
// names in an error about it.
struct PythonInterpreter {
  std::string variable = "MEMREL_PYTHON";
  std::string otherwise = "python3";
  std::string otherwise_is;
};

// Runs `python -I memrel_entry.py package args...` as a child in a group of its own, with our
// stdout, its stderr copied to ours up to a foreign report (platform/child_stderr_relay), and
// waits for it: a SIGINT, SIGTERM or SIGHUP we receive is passed on to it
// once (the Python part cleans up and says so), and it ends with us if we are killed. Returns its
// exit code when that is one of memrel's (0, 2, 4, 128 + signal); anything else (1, which here
// means "regression"; a crash) becomes 4 with one line. Before it starts: one line starting with
// `who`
// ("memrel report") and ending with `needs`, 4, where TMPDIR cannot take a file or the
// interpreter is not Python 3. The interpreter is `interpreter`'s; errors name what chose it.
int run_python_command(const std::string& who, const std::string& package,
                       const std::vector<std::string>& args, const std::string& needs,
                       const PythonInterpreter& interpreter = {});

// The exit code memrel gives for a Python part's wait status (see run_python_command); says why
// on stderr when it is not the part's own. `passed_on`: the signal memrel passed on to it, or 0:
// then it is 128 + signal whatever the part did. `held`: what the part wrote from its first
// foreign line on (ChildStderrRelay): written out after a failure of its own code or a bug, left
// out after the user's request or where an address-space limit ran out (one line says so).
// `entry_ran`: memrel_entry.py said it ran; an exit of memrel's without it is 4, said.
// `ended`: the exit code memrel_entry.py said memrel's code ended with (nullopt: it said none);
// an exit 0 that is not that code's (a wrapper lost it) is not success.
int python_exit_code(const std::string& who, const std::string& python, int status, int passed_on,
                     const std::string& held = "", bool entry_ran = true,
                     std::optional<int> ended = 0);

struct PythonResult {
  int exit_code = 0;       // the module's, or 4 when it could not run or died of a signal
  std::string error_text;  // what it wrote on stderr
};

// Runs `python -m package args...` as a child process and waits for it; its stdout is dropped.
PythonResult run_python_module(const std::string& package, const std::vector<std::string>& args);

}  // namespace memrel::cli
