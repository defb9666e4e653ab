// The one clock the harness times steps with: steady (never jumps with the wall clock), read
// after the step's own synchronisation, as every measurement in memrel is.
#pragma once

#include <chrono>
#include <cstdint>

namespace memrel {

using Clock = std::chrono::steady_clock;

inline std::uint64_t elapsed_ns(Clock::time_point since) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
}

}  // namespace memrel
