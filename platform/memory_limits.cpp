#include "platform/memory_limits.hpp"

#include <sys/resource.h>

#include <fstream>
#include <sstream>

#include "platform/address_space_limit.hpp"

namespace memrel {
namespace {

// A "Vm...:" line of /proc/self/status, in bytes; 0 when it cannot be read.
std::uint64_t status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(field.size() + 1));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib << 10;
  }
  return 0;
}

bool within_reach(std::uint64_t used, std::uint64_t request, std::uint64_t limit) {
  return used + request + kLimitReach >= limit;
}

}  // namespace

std::optional<std::uint64_t> data_limit_bytes() { return soft_limit_bytes(RLIMIT_DATA); }

std::string limit_size_text(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB"
                           : std::to_string(bytes >> 10) + " KiB";
}

std::string memory_limit_reached(std::uint64_t request_bytes) {
  if (const std::optional<std::uint64_t> limit = address_space_limit_bytes();
      limit && within_reach(status_bytes("VmSize"), request_bytes, *limit))
    return "an address-space limit of " + limit_size_text(*limit) + " (ulimit -v)";
  if (const std::optional<std::uint64_t> limit = data_limit_bytes();
      limit && within_reach(status_bytes("VmData"), request_bytes, *limit))
    return "a data-segment limit of " + limit_size_text(*limit) + " (ulimit -d)";
  return "";
}

}  // namespace memrel
