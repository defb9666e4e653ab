// Small pieces the command line needs: sizes with units, finding workloads by name, and the
// hook through which other subcommands (compare, report) join the CLI from their own files.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace memrel {

// "4096", "512KiB", "360MiB", "1GiB", "1.5GiB"; throws std::invalid_argument naming `option`.
std::uint64_t parse_byte_size(const std::string& text, const std::string& option);

// Every *.json in dir, sorted.
std::vector<std::string> all_workload_files(const std::string& dir);

// Names ("single-large") or paths; empty means all. Throws std::invalid_argument listing the
// known names when one is unknown.
std::vector<std::string> resolve_workloads(const std::vector<std::string>& names_or_paths,
                                           const std::string& dir);

// dir/run-YYYYmmddTHHMMSSZ.json
std::string default_run_path(const std::string& dir);

// Subcommands defined in their own files (harness/commands.cpp lists them).
void register_extra_subcommands(CLI::App& app);
// Runs whichever of them was parsed and returns its exit code.
int run_extra_subcommand(CLI::App& app);

}  // namespace memrel
