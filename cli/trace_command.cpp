// `memrel trace import FILE -o TRACE [--device N]` (and `memrel trace show TRACE`): real
// programs' allocation traces into memrel.trace/1 (docs/traces.md). The importer is Python
// (scripts/memrel_trace), because the only safe way to read a PyTorch snapshot, a pickle, is
// Python's Unpickler with every global refused; this subcommand runs
// scripts/memrel_trace as `memrel report` does (run_python_command), so help and exit codes (0
// written, 2 unusable input, 4 internal error) are the importer's.
#include "cli/python_module.hpp"
#include "cli/subcommand.hpp"

namespace memrel::cli {

RunSubcommand attach_trace(CLI::App& sub, const GlobalOptions& global) {
  sub.set_help_flag();
  sub.prefix_command();
  return [&sub, &global] {
    std::vector<std::string> args = python_verbosity_arguments(global.verbosity);
    for (const std::string& a : sub.remaining()) args.push_back(a);
    return run_python_command("memrel trace", "memrel_trace", args,
                              "the importer needs Python 3.9+");
  };
}

}  // namespace memrel::cli
