// The folders a command makes for its outputs, remembered so that a command that refuses or is
// stopped leaves the file system as it found it: every folder it made goes again, each while
// empty, and a folder that holds a file is kept.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace memrel {

class FoldersMadeHere {
 public:
  FoldersMadeHere();
  // Unwound by an exception (a refusal, a stop): the folders made go again, each while empty.
  ~FoldersMadeHere();
  FoldersMadeHere(const FoldersMadeHere&) = delete;
  FoldersMadeHere& operator=(const FoldersMadeHere&) = delete;

  // Makes `dir` and its missing parents, remembering each one made; a folder there already, or
  // a link of any kind (a dangling one is the user's), is not this command's. Throws
  // std::invalid_argument naming `option` and `dir` where the folder cannot be made.
  void make(const std::string& option, const std::string& dir);

  // The folders made, each removed while empty, deepest first; a folder with a file in it stays.
  void remove_empty() noexcept;

  // The folders made, with everything in them: for a command every file of which in them is its
  // own (ab's rounds). A spelling that ends in "." or ".." names a folder made before, never
  // this command's, and is passed over.
  void remove_with_contents() noexcept;

 private:
  std::vector<std::filesystem::path> made_;  // deepest first
  int exceptions_at_start_;
};

}  // namespace memrel
