#include "platform/process_identity.hpp"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace memrel {
namespace {

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// The state and the start time of process `pid`, from /proc/PID/stat; nullopt when it is gone.
struct StatFields {
  char state = 0;
  std::uint64_t start_ticks = 0;
};
std::optional<StatFields> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // "PID (COMM) S PPID ...": COMM may hold spaces and parentheses, so the fields follow the
  // last ')'. The state is field 3, the start time field 22: 19 fields after the state.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  StatFields result;
  std::string skipped;
  if (!(fields >> result.state)) return std::nullopt;
  for (int field = 4; field < 22; ++field)
    if (!(fields >> skipped)) return std::nullopt;
  if (!(fields >> result.start_ticks)) return std::nullopt;
  return result;
}

}  // namespace

std::optional<ProcessIdentity> this_process_identity() {
  const pid_t pid = getpid();
  const std::optional<StatFields> fields = stat_fields(pid);
  if (!fields) return std::nullopt;
  return ProcessIdentity{pid, fields->start_ticks, boot_id()};
}

bool process_still_runs(const ProcessIdentity& identity) {
  if (identity.pid <= 0 || identity.boot.empty() || identity.boot != boot_id()) return false;
  const std::optional<StatFields> fields = stat_fields(identity.pid);
  return fields && fields->start_ticks == identity.start_ticks && fields->state != 'Z' &&
         fields->state != 'X';
}

}  // namespace memrel
