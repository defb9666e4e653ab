#include "platform/cpu_time_limit.hpp"

#include <sys/resource.h>

namespace memrel {

CpuTimeLimit cpu_time_limit() {
  CpuTimeLimit limit;
  rlimit r{};
  if (getrlimit(RLIMIT_CPU, &r) != 0) return limit;
  if (r.rlim_cur != RLIM_INFINITY) limit.soft_seconds = r.rlim_cur;
  if (r.rlim_max != RLIM_INFINITY) limit.hard_seconds = r.rlim_max;
  return limit;
}

}  // namespace memrel
