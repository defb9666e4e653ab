// memrel's Python packages (scripts/<package>: the report, the trace importer), run from where
// this memrel finds them (platform/install_layout: the build tree's scripts/ or an installed
// prefix's share/memrel/python), with $MEMREL_PYTHON (default python3) and that folder
// prepended to the absolute entries of any PYTHONPATH already set. Nothing from the user's
// folders is importable (docs/inputs.md, "Code"): the package runs through memrel_entry.py,
// not `python3 -m`, which puts the working folder first on the module path.
#pragma once

#include <string>
#include <vector>

namespace memrel::cli {

// The argv policy, in one place: {python, SCRIPTS/memrel_entry.py, package, args...}.
std::vector<std::string> python_module_argv(const std::string& python, const std::string& scripts,
                                            const std::string& package,
                                            const std::vector<std::string>& args);

// SCRIPTS, then the absolute entries of EXISTING (a PYTHONPATH; null or empty: none). An empty or
// relative entry stands for the working folder, so it is dropped.
std::string python_path(const std::string& scripts, const char* existing);

// The -q or -v given to memrel before a Python subcommand, as that script's own argument
// (scripts/memrel_help.py gives every script both): {"-q"} for -1, {"-v"} for 1, none for 0.
std::vector<std::string> python_verbosity_arguments(int verbosity);

// Replaces this process with `python -m package args...`, so that its exit code and help are
// the package's own. Returns only when that fails: after one line on stderr, starting with
// `who` ("memrel report") and ending with `needs`, with the internal-error exit code.
int exec_python_module(const std::string& who, const std::string& package,
                       const std::vector<std::string>& args, const std::string& needs);

struct PythonResult {
  int exit_code = 0;       // the module's, or 4 when it could not run or died of a signal
  std::string error_text;  // what it wrote on stderr
};

// Runs `python -m package args...` as a child process and waits for it; its stdout is dropped.
PythonResult run_python_module(const std::string& package, const std::vector<std::string>& args);

}  // namespace memrel::cli
