// The folders memrel reads whole (--workloads-dir, --backends-dir) take no output their reader
// would take: every `memrel run` without -w (or -b) then read the results file as a workload (a
// backend file) and refused it, naming a file the user never meant as one (the eighth
// adversarial pass, c1-out-into-workloads-dir; the tenth: every other writer, and *.memtrace).
// As compare's folders take no new results file (docs/inputs.md). `trace import -o` is the one
// writer meant to add to the workloads folder.
#pragma once

#include <string>

#include "cli/subcommand.hpp"

namespace memrel::cli {

// Throws OutputError (exit 2) when PATH lies directly in the workloads folder and is named as its
// workloads are (*.json, *.memtrace), or in the backends folder as a *.json, told by identity.
// `option` ("-o") starts the message; an empty PATH is no output.
void refuse_output_in_read_folders(const std::string& path, const std::string& option,
                                   const GlobalOptions& global);

}  // namespace memrel::cli
