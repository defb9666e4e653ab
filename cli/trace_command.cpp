// `memrel trace import FILE -o TRACE [--device N]` (and `memrel trace show TRACE`): real
// programs' allocation traces into memrel.trace/1 (docs/traces.md). The importer is Python
// (scripts/memrel_trace), because the only safe way to read a PyTorch snapshot, a pickle, is
// Python's Unpickler with every global refused; this subcommand runs
// scripts/memrel_trace as `memrel report` does (run_python_command), so help and exit codes (0
// written, 2 unusable input, 4 internal error) are the importer's.
#include <iostream>
#include <optional>

#include "cli/exit_codes.hpp"
#include "cli/python_module.hpp"
#include "cli/subcommand.hpp"
#include "harness/workload/trace_file.hpp"
#include "harness/workload/workload.hpp"
#include "platform/one_line_text.hpp"

namespace memrel::cli {
namespace {

// The TRACE of `show [--events] TRACE` as the script's argparse reads the words (options
// anywhere, `--` ending them); nullopt for another subcommand or not exactly one such word, which
// the script's own usage line then says.
std::optional<std::string> shown_trace(const std::vector<std::string>& words) {
  std::size_t i = 0;
  while (i < words.size() && words[i].rfind("-", 0) == 0 && words[i] != "--") ++i;
  if (i == words.size() || words[i] != "show") return std::nullopt;
  std::vector<std::string> positional;
  bool options_ended = false;
  for (++i; i < words.size(); ++i) {
    if (!options_ended && words[i] == "--")
      options_ended = true;
    else if (options_ended || words[i].rfind("-", 0) != 0 || words[i] == "-")
      positional.push_back(words[i]);
  }
  if (positional.size() != 1) return std::nullopt;
  return positional[0];
}

}  // namespace

RunSubcommand attach_trace(CLI::App& sub, const GlobalOptions& global) {
  sub.set_help_flag();
  sub.prefix_command();
  return [&sub, &global] {
    std::vector<std::string> args = python_verbosity_arguments(global.verbosity);
    for (const std::string& a : sub.remaining()) args.push_back(a);
    // `show` prints only a trace the replay loads: checked by the loader itself first, so one
    // file gets one verdict (Python's json took a header's NaN, Infinity and duplicate keys, and
    // 81920.0 for a byte count, which `run` and `validate` refuse: the thirty-first adversarial
    // pass, c7-trace-show-accepts-non-json-header).
    if (std::optional<std::string> trace = shown_trace(sub.remaining())) {
      try {
        load_trace_file(*trace);
      } catch (const WorkloadError& e) {
        std::cerr << "memrel trace: " << one_line_text(e.what()) << "\n";
        return exit_code::kUnusableInput;
      }
    }
    return run_python_command("memrel trace", "memrel_trace", args,
                              "the importer needs Python 3.9+");
  };
}

}  // namespace memrel::cli
