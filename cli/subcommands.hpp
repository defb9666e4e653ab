// The table of memrel's subcommands, and the one function that runs a command line against it.
#pragma once

#include <vector>

#include "cli/subcommand.hpp"

namespace memrel::cli {

const std::vector<Subcommand>& subcommands();

// Parses argv, runs the chosen subcommand, and maps every error to its exit code with a
// one-line message on stderr.
int run_command_line(int argc, char** argv);

}  // namespace memrel::cli
