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

// The limit that most likely killed a process that ended by SIGNAL after WALL_SECONDS: the soft
// one for SIGXCPU, the hard one for SIGKILL; nullopt for another signal, no such limit, or a
// process that cannot have used that much CPU time (its wall time on every CPU: under `ulimit
// -t 1000` a cell killed after milliseconds was blamed on the limit, the twenty-second
// adversarial pass, c8-sigkill-blamed-on-cpu-limit). For a cell (the runner) and a memrel_bench
// (bench, ab: the seventy-ninth adversarial pass, c8-bench-cpu-limit-blamed-on-backend).
std::optional<std::uint64_t> cpu_limit_that_killed(int signal, double wall_seconds);

}  // namespace memrel
