#include "cli/read_folders.hpp"

#include <filesystem>

#include "platform/atomic_file.hpp"

namespace memrel::cli {

void refuse_output_in_read_folders(const std::string& path, const std::string& option,
                                   const GlobalOptions& global) {
  if (std::filesystem::path(path).extension() != ".json") return;
  const std::string folder =
      folder_holding_output(path, {global.workloads_dir, global.backends_dir});
  if (folder.empty()) return;
  const char* what = folder == global.workloads_dir ? "workload" : "backend file";
  throw OutputError(option + " " + path + ": a .json file in " + folder + " is read as a " + what +
                    " by every memrel run; write it elsewhere");
}

}  // namespace memrel::cli
