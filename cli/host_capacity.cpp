#include "cli/host_capacity.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "harness/workload/workload.hpp"
#include "platform/byte_size.hpp"

namespace memrel::cli {
namespace {

// What the kernel says the machine has (MemTotal); 0 when it cannot tell.
std::uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
             : 0;
}

}  // namespace

std::uint64_t host_capacity_bytes(const std::string& text) {
  const std::uint64_t bytes = parse_byte_size(text, "--host-capacity", kMaxRequestBytes);
  const std::uint64_t machine = machine_memory_bytes();
  if (machine != 0 && bytes > machine) {
    char have[32];
    std::snprintf(have, sizeof have, "%.1f GiB", static_cast<double>(machine) / (1 << 30));
    throw std::invalid_argument("--host-capacity " + text + ": more than this machine's memory (" +
                                have + "); a host backend's cells would be killed for it");
  }
  return bytes;
}

}  // namespace memrel::cli
