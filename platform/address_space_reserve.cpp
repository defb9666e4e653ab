#include "platform/address_space_reserve.hpp"

#include <dirent.h>
#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

#include "platform/address_space_limit.hpp"

namespace memrel {
namespace {

// How near its soft limit a process is taken to have come to it: malloc asks for 128 KiB to
// 1 MiB at a time, and the loop was seen 124 KiB under the limit.
constexpr std::uint64_t kNearLimitBytes = std::uint64_t{4} << 20;

// A tree deeper than this is not a Python part's (it starts plot workers, not chains).
constexpr int kMostDepth = 8;

std::optional<std::uint64_t> mapped_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) != 0) continue;
    std::istringstream fields(line.substr(7));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib << 10;
  }
  return std::nullopt;  // ended, or a zombie (no VmSize)
}

}  // namespace

std::optional<std::uint64_t> reserved_address_space_limit() {
  const std::optional<std::uint64_t> limit = address_space_limit_bytes();
  if (!limit || *limit < 4 * kAddressSpaceReserveBytes) return std::nullopt;
  return *limit - kAddressSpaceReserveBytes;
}

void AddressSpaceRescue::check() { check_process(root_, 0); }

void AddressSpaceRescue::check_process(pid_t pid, int depth) {
  struct rlimit current {};
  if (prlimit(pid, RLIMIT_AS, nullptr, &current) == 0 && current.rlim_cur == reserved_) {
    // Only a limit memrel set: one the part lowered itself (the importer bounds an unpickler
    // that way) is the part's to keep.
    const std::optional<std::uint64_t> mapped = mapped_bytes(pid);
    if (mapped && *mapped + kNearLimitBytes >= reserved_) {
      struct rlimit raised = current;
      raised.rlim_cur = limit_;
      if (prlimit(pid, RLIMIT_AS, &raised, nullptr) == 0) ++rescued_;
    }
  }
  if (depth >= kMostDepth) return;
  // Its children, thread by thread (/proc/PID/task/TID/children, Linux 4.2 and later).
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* folder = opendir(tasks.c_str());
  if (folder == nullptr) return;
  while (const dirent* task = readdir(folder)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream children(tasks + "/" + task->d_name + "/children");
    for (pid_t child; children >> child;) check_process(child, depth + 1);
  }
  closedir(folder);
}

}  // namespace memrel
