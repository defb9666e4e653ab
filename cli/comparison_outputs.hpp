// What `memrel compare` and `memrel ab` print and write for one comparison: the Markdown table
// on stdout, and each of --markdown, --junit, --summary and --json written whole or not at all.
#pragma once

#include <string>
#include <vector>

#include "cli/subcommand.hpp"
#include "gate/compare.hpp"
#include "gate/compare_options.hpp"

namespace memrel::cli {

struct ComparisonOutputs {
  std::string markdown, junit, summary, json;  // paths; empty: not asked for
};

// Before any work: each asked-for file obeys the output rule (docs/inputs.md, "Outputs"): not a
// link, FIFO or device, and none of `inputs` (the baseline, the current run, a bench binary) by
// identity, nor a file the workloads or backends folder would read (cli/read_folders.hpp), nor a
// file directly in one of `filled_folders` (folders the command fills with its own files, as ab's
// rounds). Throws OutputError (exit 2) naming the option.
void check_comparison_outputs(const ComparisonOutputs& outputs,
                              const std::vector<std::string>& inputs, const GlobalOptions& global,
                              const std::vector<std::string>& filled_folders = {});

// Prints the Markdown table and writes the asked-for files atomically. Throws
// std::invalid_argument naming the option when a file cannot be written. Returns the report's
// exit code.
int print_and_write(const Report& report, const CompareOptions& options,
                    const ComparisonOutputs& outputs);

}  // namespace memrel::cli
