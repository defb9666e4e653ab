// Finding workload files: every file of the workloads folder, or the ones named by name or path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memrel {

// Whether a file of this name in the workloads folder is one of its workloads: a step list
// (*.json) or an imported trace (*.memtrace, docs/traces.md).
bool is_workload_file_name(const std::string& path);

// Every workload file of dir (is_workload_file_name), sorted.
std::vector<std::string> all_workload_files(const std::string& dir);

// Names ("single-large") or paths; empty means all. Throws std::invalid_argument listing the
// known names when one is unknown.
std::vector<std::string> resolve_workloads(const std::vector<std::string>& names_or_paths,
                                           const std::string& dir);

// dir/run-YYYYmmddTHHMMSSZ.json
std::string default_run_path(const std::string& dir);

}  // namespace memrel
