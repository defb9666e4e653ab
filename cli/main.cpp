// memrel: the command line. Everything but this line is in the memrel_cli library
// (cli/subcommands.cpp holds the table of subcommands), so tests link what users run.
#include "cli/subcommands.hpp"

int main(int argc, char** argv) { return memrel::cli::run_command_line(argc, argv); }
