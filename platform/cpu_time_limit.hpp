// The process's CPU-time limit (RLIMIT_CPU, `ulimit -t`): a cell killed for it (SIGXCPU at the
// soft limit, SIGKILL at the hard one) was recorded as the allocator's crash, and a --resume
// without the limit kept it (the eighteenth adversarial pass, c8-ulimit-cpu-*). One reading for
// the runner's verdict on such a cell and the run's identity.
#pragma once

#include <cstdint>
#include <optional>

namespace memrel {

struct CpuTimeLimit {
  std::optional<std::uint64_t> soft_seconds;  // nullopt: unlimited
  std::optional<std::uint64_t> hard_seconds;
};

CpuTimeLimit cpu_time_limit();

}  // namespace memrel
