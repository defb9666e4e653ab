// Files read at the start of a long job that later readers read again (each cell of a run reads
// its workload and backend files anew): the version each had when first read, and which one, if
// any, is no longer that file. A file edited mid-run gave cells of two contents under one name
// and one digest, exit 0 (the thirty-third adversarial pass,
// c5-workload-edited-mid-run-mixed-cells).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/file_version.hpp"

namespace memrel {

class FilesUnchanged {
 public:
  // Watches PATH as it was when `seen` was taken (before its first read); as it is now when
  // `seen` is empty. A file that could not be stat'ed then counts as changed once it can.
  void watch(const std::string& path, std::optional<FileVersion> seen = std::nullopt);
  // The first watched path whose file is not the version seen (edited, replaced, removed);
  // empty when none.
  std::string first_changed() const;
  bool empty() const { return watched_.empty(); }

 private:
  struct Watched {
    std::string path;
    std::optional<FileVersion> seen;
  };
  std::vector<Watched> watched_;
};

}  // namespace memrel
