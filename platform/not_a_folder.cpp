#include "platform/not_a_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

namespace memrel {

std::string not_a_folder(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return "";
  if (!S_ISLNK(st.st_mode)) return S_ISDIR(st.st_mode) ? "" : path + " is not a folder";
  if (stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? "" : path + " is not a folder";
  if (errno == ELOOP) return path + " is a loop of symbolic links";
  if (errno != ENOENT) return "";  // a folder not searchable: the write says
  std::vector<char> target(4096);
  ssize_t n = readlink(path.c_str(), target.data(), target.size() - 1);
  if (n < 0) return path + " is a symbolic link to nothing";
  return path + " is a symbolic link to " + std::string(target.data(), static_cast<size_t>(n)) +
         ", which does not exist";
}

std::string where_folders_are_made(const std::string& path) {
  std::filesystem::path at = path.empty() ? "." : path;
  for (struct stat st{}; lstat(at.c_str(), &st) != 0;) {
    if (!at.has_parent_path() || at == at.parent_path()) return at.is_absolute() ? "/" : ".";
    at = at.parent_path();
  }
  return at.string();
}

}  // namespace memrel
