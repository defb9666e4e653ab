// `memrel validate FILE...`: parses workload files (and loads traces, *.memtrace, and imports
// snapshots and RMM logs, as run does) without running them; each error is one line naming the
// file and the step (or the trace's record).
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "cli/trace_import.hpp"
#include "harness/workload/workload.hpp"
#include "platform/one_line_text.hpp"

namespace memrel::cli {

RunSubcommand attach_validate(CLI::App& app, const GlobalOptions&) {
  auto files = std::make_shared<std::vector<std::string>>();
  app.add_option("files", *files,
                 "Workload files, traces (*.memtrace), PyTorch snapshots or RMM logs")
      ->required();
  return [files] {
    int rc = exit_code::kSuccess;
    // A snapshot or an RMM log is checked as run reads it: imported (needs_trace_import, the one
    // rule), then loaded as the trace it becomes.
    ImportedTraces imported;
    for (const auto& f : *files) {
      try {
        Workload w = parse_workload_file(imported.prepare(f));
        if (w.trace)
          std::cout << one_line_text(f) << ": ok (trace " << one_line_text(w.name) << ": "
                    << one_line_text(w.description) << ")\n";
        else
          std::cout << one_line_text(f) << ": ok (" << one_line_text(w.name) << ", "
                    << w.steps.size() << " steps)\n";
      } catch (const WorkloadError& e) {
        std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
        rc = exit_code::kUnusableInput;
      } catch (const std::invalid_argument& e) {  // the importer's line
        std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
        rc = exit_code::kUnusableInput;
      }
    }
    return rc;
  };
}

}  // namespace memrel::cli
