#include "cli/read_folders.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "platform/atomic_file.hpp"

namespace memrel::cli {

void refuse_output_in_read_folders(const std::string& path, const std::string& option,
                                   const GlobalOptions& global) {
  const std::filesystem::path out(path);
  if (out.extension() != ".json") return;
  const std::string folder = out.parent_path().empty() ? "." : out.parent_path().string();
  struct stat at {};
  if (stat(folder.c_str(), &at) != 0) return;  // a folder made for it: none of these
  const struct {
    const std::string& dir;
    const char* what;
  } read_whole[] = {{global.workloads_dir, "workload"}, {global.backends_dir, "backend file"}};
  for (const auto& r : read_whole) {
    struct stat st {};
    if (stat(r.dir.c_str(), &st) == 0 && st.st_dev == at.st_dev && st.st_ino == at.st_ino)
      throw OutputError(option + " " + path + ": a .json file in " + r.dir + " is read as a " +
                        r.what + " by every memrel run; write it elsewhere");
  }
}

}  // namespace memrel::cli
