#include "cli/python_part_leftovers.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string_view>
#include <system_error>

namespace memrel::cli {
namespace {

constexpr std::string_view kLeavesMark = "memrel_entry.py leaves ";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The bytes HEX spells (lower-case, two digits a byte), or "" where it spells none. Hex: a path
// may hold any byte but NUL, a newline included, and the lines are newline-separated.
std::string from_hex(std::string_view hex) {
  if (hex.empty() || hex.size() % 2 != 0) return "";
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_digit(hex[i]);
    const int low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) return "";
    const char byte = static_cast<char>(high * 16 + low);
    if (byte == '\0') return "";
    bytes.push_back(byte);
  }
  return bytes;
}

bool is_of_kind(const std::string& path, mode_t kind) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

}  // namespace

std::vector<std::string> announced_leftovers(const std::string& said) {
  std::vector<std::string> paths;
  std::size_t from = 0;
  while (from < said.size()) {
    std::size_t end = said.find('\n', from);
    if (end == std::string::npos) break;  // a line cut short by the kill is no announcement
    std::string_view line(said.data() + from, end - from);
    from = end + 1;
    if (line.substr(0, kLeavesMark.size()) != kLeavesMark) continue;
    std::string path = from_hex(line.substr(kLeavesMark.size()));
    if (!path.empty() && path.front() == '/') paths.push_back(std::move(path));
  }
  return paths;
}

std::vector<std::string> remove_leftovers(const std::string& said) {
  std::vector<std::string> removed;
  for (const std::string& path : announced_leftovers(said)) {
    std::error_code ec;
    if (is_of_kind(path, S_IFDIR)) {
      // Only a folder still marked as half-written: a report that got as far as its finished
      // marker, or a user's folder of that name, is not a leftover of this part.
      if (!is_of_kind(path + "/" + kReportPartialMarker, S_IFREG)) continue;
      // remove_all removes a link inside as a link, never what it points to.
      std::filesystem::remove_all(path, ec);
      if (!ec) removed.push_back(path);
    } else if (is_of_kind(path, S_IFREG)) {
      if (unlink(path.c_str()) == 0) removed.push_back(path);
    }
  }
  return removed;
}

}  // namespace memrel::cli
