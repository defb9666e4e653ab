#include "platform/address_space_reserve.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
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

// How long a process may keep its address space unchanged while it keeps a CPU busy before it is
// taken to be retrying a refused request.
constexpr std::chrono::milliseconds kStuckAfter{1000};

// How long one given the reserve back may stay stuck, and how near its limit, before the tree is
// ended: a buffer of 32 MiB that OpenBLAS retries is within the window; a computation far below
// the limit is never ended.
constexpr std::chrono::seconds kGiveUpAfter{10};
constexpr std::uint64_t kGiveUpWindowBytes = std::uint64_t{64} << 20;

// Its user and system time in clock ticks (/proc/PID/stat, fields 14 and 15); 0 when it ended.
std::uint64_t cpu_ticks(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t name_end = text.rfind(')');
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  std::uint64_t user = 0, system = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // field 3 is the state
    if (i == 14) user = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) system = std::strtoull(field.c_str(), nullptr, 10);
  }
  return user + system;
}

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

bool AddressSpaceRescue::stuck(pid_t pid, std::uint64_t mapped) {
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t ticks = cpu_ticks(pid);
  auto [it, first] = seen_.try_emplace(pid, Seen{mapped, ticks, now, {}});
  Seen& seen = it->second;
  const auto start_again = [&] {  // the time it was given the reserve back stays
    seen.mapped = mapped;
    seen.cpu_ticks = ticks;
    seen.since = now;
  };
  if (first || seen.mapped != mapped) {
    start_again();
    return false;
  }
  const auto elapsed = now - seen.since;
  if (elapsed < kStuckAfter) return false;
  // The same address space for a second: stuck when it was busy a tenth of it at least (OpenBLAS
  // yields between its retries: a quarter to a half of a CPU was seen). Idle (a report waiting
  // for its chart workers, a part reading its input), it starts again.
  const double busy = static_cast<double>(ticks - seen.cpu_ticks);
  const double ticks_elapsed =
      std::chrono::duration<double>(elapsed).count() * static_cast<double>(sysconf(_SC_CLK_TCK));
  if (10 * busy >= ticks_elapsed) return true;
  start_again();
  return false;
}

void AddressSpaceRescue::check_process(pid_t pid, int depth) {
  struct rlimit current {};
  const bool read = prlimit(pid, RLIMIT_AS, nullptr, &current) == 0;
  if (read && current.rlim_cur == limit_ && seen_.count(pid) &&
      seen_[pid].rescued_at != std::chrono::steady_clock::time_point{}) {
    const std::optional<std::uint64_t> mapped = mapped_bytes(pid);
    if (mapped && *mapped + kGiveUpWindowBytes >= limit_ && stuck(pid, *mapped) &&
        std::chrono::steady_clock::now() - seen_[pid].rescued_at >= kGiveUpAfter) {
      kill(-root_, SIGKILL);
      kill(root_, SIGKILL);
      gave_up_ = true;
      return;
    }
  }
  if (read && current.rlim_cur == reserved_) {
    // Only a limit memrel set: one the part lowered itself (the importer bounds an unpickler
    // that way) is the part's to keep.
    const std::optional<std::uint64_t> mapped = mapped_bytes(pid);
    if (mapped && (*mapped + kNearLimitBytes >= reserved_ || stuck(pid, *mapped))) {
      struct rlimit raised = current;
      raised.rlim_cur = limit_;
      if (prlimit(pid, RLIMIT_AS, &raised, nullptr) == 0) {
        ++rescued_;
        seen_[pid].rescued_at = std::chrono::steady_clock::now();
      }
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
