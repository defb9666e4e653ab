#include "platform/cpu_time_limit.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

namespace memrel {

CpuTimeLimit cpu_time_limit() {
  CpuTimeLimit limit;
  rlimit r{};
  if (getrlimit(RLIMIT_CPU, &r) != 0) return limit;
  if (r.rlim_cur != RLIM_INFINITY) limit.soft_seconds = r.rlim_cur;
  if (r.rlim_max != RLIM_INFINITY) limit.hard_seconds = r.rlim_max;
  return limit;
}

std::optional<std::uint64_t> cpu_limit_that_killed(int signal, double wall_seconds) {
  const CpuTimeLimit cpu = cpu_time_limit();
  const std::optional<std::uint64_t> limit = signal == SIGXCPU   ? cpu.soft_seconds
                                             : signal == SIGKILL ? cpu.hard_seconds
                                                                 : std::nullopt;
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  if (limit && wall_seconds * static_cast<double>(cpus) >= static_cast<double>(*limit))
    return limit;
  return std::nullopt;
}

}  // namespace memrel
