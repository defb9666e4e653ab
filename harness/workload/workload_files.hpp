// Finding workload files: every file of the workloads folder, or the ones named by name or path.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace memrel {

// Whether a file of this name in the workloads folder is one of its workloads: a step list
// (*.json) or an imported trace (*.memtrace, docs/traces.md).
bool is_workload_file_name(const std::string& path);

// The workloads folder could not be read: --workloads-dir's, or the installation's own where the
// option was not given (the command line tells the two apart: cli/subcommands.cpp).
class WorkloadsFolderUnreadable : public std::invalid_argument {
 public:
  WorkloadsFolderUnreadable(const std::string& folder, const std::string& why, int error = 0)
      : std::invalid_argument("--workloads-dir: cannot read '" + folder + "': " + why),
        folder_(folder),
        error_(error) {}
  const std::string& folder() const { return folder_; }
  int error() const { return error_; }  // the errno, where one said why

 private:
  std::string folder_;
  int error_;
};

// Every workload file of dir (is_workload_file_name), sorted.
std::vector<std::string> all_workload_files(const std::string& dir);

// Names ("single-large") or paths; empty means all. Throws std::invalid_argument listing the
// known names when one is unknown.
std::vector<std::string> resolve_workloads(const std::vector<std::string>& names_or_paths,
                                           const std::string& dir);

// dir/run-YYYYmmddTHHMMSSZ.json
std::string default_run_path(const std::string& dir);

}  // namespace memrel
