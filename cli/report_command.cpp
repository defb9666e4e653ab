// `memrel report [options] --out DIR RESULTS.json...`: the plots and the report folder
// (docs/report.md). The report itself is Python (scripts/memrel_report, matplotlib); this
// subcommand runs scripts/memrel_report in a child (run_python_command), every argument passed
// through unparsed, so `memrel report --help` prints the script's help and the exit code is the
// script's (0 written, 2 unusable input, 4 internal error), a signal passed on to it.
//
// The interpreter is $MEMREL_PYTHON, else python3 on PATH; the package is found through
// memrel's Python folder (cli/python_module.hpp).
#include "cli/passed_through_option.hpp"
#include "cli/python_module.hpp"
#include "cli/subcommand.hpp"
#include "gate/history/history_db.hpp"

namespace memrel::cli {

RunSubcommand attach_report(CLI::App& sub, const GlobalOptions& global) {
  // No options of its own: --help and everything else belong to the script.
  sub.set_help_flag();
  sub.prefix_command();
  return [&sub, &global] {
    std::vector<std::string> args = python_verbosity_arguments(global.verbosity);
    for (const std::string& a : sub.remaining()) args.push_back(a);
    // The history's hot journal rolled back first: the report opens it read-only.
    roll_back_hot_journal(passed_through_option(sub.remaining(), "--history"));
    return run_python_command("memrel report", "memrel_report", args,
                              "the report needs Python 3.9+ with matplotlib "
                              "(scripts/install-deps)");
  };
}

}  // namespace memrel::cli
