#include "platform/own_descriptor_path.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace memrel {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

bool through_own_descriptor(const std::string& path) {
  const std::string own = "/proc/" + std::to_string(getpid()) + "/fd/";
  return path == "/dev/stdin" || starts_with(path, "/dev/fd/") ||
         starts_with(path, "/proc/self/fd/") || starts_with(path, "/proc/thread-self/fd/") ||
         starts_with(path, own);
}

std::string file_behind_own_descriptor(const std::string& path) {
  if (!through_own_descriptor(path)) return path;
  char real[PATH_MAX];
  if (realpath(path.c_str(), real) == nullptr || real[0] != '/') return path;
  return real;
}

}  // namespace memrel
