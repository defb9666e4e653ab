#include "platform/path_spelling.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace memrel {
namespace fs = std::filesystem;

namespace {

bool same_folder(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

std::string path_spelling_problem(const std::string& path) {
  // Trailing "/" and "/." follow a link the spelling without them names (`link/.` is the link's
  // target, and a lexical reading renamed the link itself: c2-report-out-symlink-dot).
  std::string stripped = path;
  while (true) {
    if (stripped.size() > 1 && stripped.back() == '/')
      stripped.pop_back();
    else if (stripped.size() > 2 && stripped.compare(stripped.size() - 2, 2, "/.") == 0)
      stripped.resize(stripped.size() - 2);
    else
      break;
  }
  struct stat st {};
  if (stripped.size() < path.size() && lstat(stripped.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return "is a symbolic link (a trailing / or /. follows it); refusing to write through it";
  // Each ".." checked where it stands: what the system reaches through the spelling so far, and
  // where a lexical reading of the same spelling lands, must be one existing folder.
  std::string so_far = path.size() && path[0] == '/' ? "/" : "";
  std::size_t start = 0;
  while (start < stripped.size()) {
    std::size_t end = stripped.find('/', start);
    if (end == std::string::npos) end = stripped.size();
    const std::string part = stripped.substr(start, end - start);
    start = end + 1;
    if (part.empty()) continue;
    const std::string before = so_far.empty() ? "." : so_far;
    so_far += (so_far.empty() || so_far.back() == '/' ? "" : "/") + part;
    if (part != "..") continue;
    struct stat system {
    }, lexical{};
    std::error_code ec;
    const fs::path lexical_path = fs::absolute(so_far, ec).lexically_normal();
    // Said as what stops it: out of a regular file it was "which does not exist" of a file
    // that does (the eightieth adversarial pass, c1-output-dotdot-through-regular-file).
    if (stat(so_far.c_str(), &system) != 0)
      return "goes up (..) out of " + before +
             (errno == ENOENT ? std::string(", which does not exist")
              : errno == ENOTDIR
                  ? std::string(", which is not a folder")
                  : ", which cannot be reached (" + std::string(strerror(errno)) + ")") +
             ": the system and memrel would read two different folders; spell the path "
             "without ..";
    if (ec || stat(lexical_path.c_str(), &lexical) != 0 || !same_folder(system, lexical))
      return "goes up (..) out of " + before +
             ", which is reached through a symbolic link: the system goes up from the link's "
             "target; spell the path without ..";
  }
  return "";
}

}  // namespace memrel
