// `memrel validate FILE...`: parses workload files (and loads traces, *.memtrace) without running
// them; each error is one line naming the file and the step (or the trace's record).
#include <iostream>
#include <memory>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "harness/workload/workload.hpp"
#include "platform/one_line_text.hpp"

namespace memrel::cli {

RunSubcommand attach_validate(CLI::App& app, const GlobalOptions&) {
  auto files = std::make_shared<std::vector<std::string>>();
  app.add_option("files", *files, "Workload files or traces (*.memtrace)")->required();
  return [files] {
    int rc = exit_code::kSuccess;
    for (const auto& f : *files) {
      try {
        Workload w = parse_workload_file(f);
        if (w.trace)
          std::cout << one_line_text(f) << ": ok (trace " << one_line_text(w.name) << ": "
                    << one_line_text(w.description) << ")\n";
        else
          std::cout << one_line_text(f) << ": ok (" << one_line_text(w.name) << ", "
                    << w.steps.size() << " steps)\n";
      } catch (const WorkloadError& e) {
        std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
        rc = exit_code::kUnusableInput;
      }
    }
    return rc;
  };
}

}  // namespace memrel::cli
