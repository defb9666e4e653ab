#include "platform/files_unchanged.hpp"

namespace memrel {

void FilesUnchanged::watch(const std::string& path, std::optional<FileVersion> seen) {
  watched_.push_back({path, seen ? seen : file_version(path)});
}

std::string FilesUnchanged::first_changed() const {
  for (const Watched& w : watched_) {
    if (file_version(w.path) != w.seen) return w.path;
  }
  return "";
}

}  // namespace memrel
