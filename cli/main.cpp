// memrel: the command line. Everything but this line is in the memrel_cli library
// (cli/subcommands.cpp holds the table of subcommands), so tests link what users run.
#include <unistd.h>

#include "cli/exit_codes.hpp"
#include "cli/subcommands.hpp"
#include "platform/stack_limit.hpp"

int main(int argc, char** argv) {
  // First, before any call that could bind a symbol on a stack too small for it; _exit: nothing
  // of the C++ library's is run on the way out either (platform/stack_limit.hpp).
  if (memrel::said_stack_limit_too_small()) _exit(memrel::exit_code::kInternalError);
  return memrel::cli::run_command_line(argc, argv);
}
