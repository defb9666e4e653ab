#include "platform/executable_path.hpp"

#include <filesystem>
#include <system_error>

namespace memrel {

std::string executable_path() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string executable_dir() {
  const std::string exe = executable_path();
  return exe.empty() ? std::string() : std::filesystem::path(exe).parent_path().string();
}

}  // namespace memrel
