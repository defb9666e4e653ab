#include "platform/mount_points.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memrel {
namespace {

// mountinfo writes a space, tab, newline or backslash of a path as a three-digit octal escape.
std::string unescaped(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string digits = field.substr(i + 1, 3);
      if (digits.size() == 3 && digits.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::strtol(digits.c_str(), nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

}  // namespace

std::string mount_point_at_or_below(const std::string& path) {
  std::error_code ec;
  const std::string top = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  if (ec || top.empty()) return "";
  const std::string below = top == "/" ? "/" : top + "/";
  std::ifstream table("/proc/self/mountinfo");
  std::string line;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    if (!(fields >> id >> parent >> device >> root >> point)) continue;
    point = unescaped(point);
    if (point == top || point.rfind(below, 0) == 0) return point;
  }
  return "";
}

}  // namespace memrel
