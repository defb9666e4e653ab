// What every subcommand gives the command line: a row of the table in subcommands.cpp.
//
// `attach` adds the subcommand's options to its own CLI::App, binding them to state it owns, and
// returns the function that runs it once the command line has been parsed. No static
// singletons: the state lives in the returned closure.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace memrel::cli {

// Options that come before the subcommand and concern every one of them.
struct GlobalOptions {
  std::string workloads_dir;
  std::string backends_dir;  // backend files (memrel.backend/1), found by their names
  // -q: -1, no progress; -v: 1, a line for every cell; 0: a line for every cell where stderr is
  // a terminal, else only the lines worth reading (a log stays short).
  int verbosity = 0;
};

// Returns the exit code (cli/exit_codes.hpp). Unusable input is thrown, not returned: the
// dispatcher turns it into one line and exit code 2 in one place.
using RunSubcommand = std::function<int()>;

struct Subcommand {
  const char* name;
  const char* description;
  RunSubcommand (*attach)(CLI::App& app, const GlobalOptions& global);
};

}  // namespace memrel::cli
