// How a number on the command line may be spelled: the C++ subcommands' rule, the same as the
// Python subcommands' (scripts/memrel_help.py, `whole_number` and `finite_number`).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace memrel::cli {

// The first numeric option or positional of APP (or a subcommand below it) given a value that
// is not plain decimal ASCII, as one line ("--alpha: '0x1p-2' is not a decimal number ..."); ""
// when none. CLI11 reads `0x5`, `0b101`, `0x1p-2`, ` 0.1` and `+5` as numbers: a value that
// means something else to a reader, and one the Python subcommands refuse.
// `whole_only`: only options of whole numbers are looked at (said in place of CLI11's own
// words, which for "1e1" were "not in range"; a decimal option's validator says more).
std::string misspelled_number(const CLI::App* app, bool whole_only = false);

}  // namespace memrel::cli
