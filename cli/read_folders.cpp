#include "cli/read_folders.hpp"

#include <filesystem>

#include "harness/workload/workload_files.hpp"
#include "platform/atomic_file.hpp"

namespace memrel::cli {

void refuse_output_in_read_folders(const std::string& path, const std::string& option,
                                   const GlobalOptions& global) {
  if (path.empty()) return;
  const std::string folder =
      folder_holding_output(path, {global.workloads_dir, global.backends_dir});
  if (folder.empty()) return;
  const bool workloads = folder == global.workloads_dir;
  // What each folder's reader takes: workloads_dir's *.json and *.memtrace, backends_dir's *.json.
  if (workloads ? !is_workload_file_name(path) : std::filesystem::path(path).extension() != ".json")
    return;
  throw OutputError(option + " " + path + ": a " +
                    std::filesystem::path(path).extension().string() + " file in " + folder +
                    " is read as a " + (workloads ? "workload" : "backend file") +
                    " by every memrel run; write it elsewhere");
}

}  // namespace memrel::cli
