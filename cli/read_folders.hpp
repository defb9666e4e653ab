// The folders memrel reads whole (--workloads-dir, --backends-dir) take no .json output: every
// `memrel run` without -w (or -b) then read the results file as a workload (a backend file) and
// refused it, naming a file the user never meant as one (the eighth adversarial pass,
// c1-out-into-workloads-dir). As compare's folders take no new results file (docs/inputs.md).
#pragma once

#include <string>

#include "cli/subcommand.hpp"

namespace memrel::cli {

// Throws OutputError (exit 2) when PATH ends in .json and lies directly in the workloads or the
// backends folder, told by identity. `option` ("-o") starts the message.
void refuse_output_in_read_folders(const std::string& path, const std::string& option,
                                   const GlobalOptions& global);

}  // namespace memrel::cli
