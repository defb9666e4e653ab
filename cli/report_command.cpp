// `memrel report [options] --out DIR RESULTS.json...`: the plots and the report folder
// (docs/report.md). The report itself is Python (scripts/memrel_report, matplotlib); this
// subcommand replaces the process with `python3 -m memrel_report ARGS...`, every argument passed
// through unparsed, so `memrel report --help` prints the script's help and the exit code is the
// script's (0 written, 2 unusable input, 4 internal error).
//
// The interpreter is $MEMREL_PYTHON, else python3 on PATH; the package is found through
// PYTHONPATH=MEMREL_SOURCE_DIR/scripts (prepended to any PYTHONPATH already set).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"

#ifndef MEMREL_SOURCE_DIR
#define MEMREL_SOURCE_DIR "."
#endif

namespace memrel::cli {
namespace {

int run_report(const CLI::App& sub) {
  const std::string scripts = std::string(MEMREL_SOURCE_DIR) + "/scripts";
  struct stat st {};
  if (stat((scripts + "/memrel_report/__main__.py").c_str(), &st) != 0) {
    std::cerr << "memrel report: " << scripts
              << "/memrel_report not found (memrel reads its report "
              << "scripts from the source tree it was built from)\n";
    return exit_code::kInternalError;
  }
  const char* existing = std::getenv("PYTHONPATH");
  std::string pythonpath = scripts + (existing && *existing ? std::string(":") + existing : "");
  setenv("PYTHONPATH", pythonpath.c_str(), 1);

  const char* python_env = std::getenv("MEMREL_PYTHON");
  const std::string python = python_env && *python_env ? python_env : "python3";
  std::vector<std::string> args = {python, "-m", "memrel_report"};
  for (const auto& a : sub.remaining()) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::cout.flush();
  std::cerr.flush();
  execvp(argv[0], argv.data());
  std::cerr << "memrel report: cannot run " << python << " (" << std::strerror(errno)
            << "): the report needs Python 3.11+ with matplotlib (scripts/install-deps); set "
            << "MEMREL_PYTHON to choose the interpreter\n";
  return exit_code::kInternalError;
}

}  // namespace

RunSubcommand attach_report(CLI::App& sub, const GlobalOptions&) {
  // No options of its own: --help and everything else belong to the script.
  sub.set_help_flag();
  sub.prefix_command();
  return [&sub] { return run_report(sub); };
}

}  // namespace memrel::cli
