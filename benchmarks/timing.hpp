// The clock around every timed region, and the one rule about where it stops.
//
// Every benchmark uses manual time (UseManualTime): Google Benchmark's own timer would count the
// untimed work around each operation (the release before a cold allocation, the free after a
// timed allocation), and its PauseTiming costs more than the operations it would exclude.
#pragma once

#include <chrono>

#include "allocators/allocator.hpp"

namespace memrel::bench {

// Monotonic, unlike the system clock, which NTP may step mid-measurement. On Linux a read is
// clock_gettime(CLOCK_MONOTONIC) in the vDSO, ~20 ns: the floor of what the null backend shows.
using BenchClock = std::chrono::steady_clock;

// Seconds taken by `operation` and the synchronize() after it. Device allocators work
// asynchronously (a stream-ordered free is only done at stream synchronisation), so the clock
// stops after synchronising, never before: otherwise a regression in the deferred part of the
// work would be invisible.
template <typename Operation>
double timed_seconds(Allocator& allocator, Operation&& operation) {
  const BenchClock::time_point start = BenchClock::now();
  operation();
  allocator.synchronize();
  return std::chrono::duration<double>(BenchClock::now() - start).count();
}

}  // namespace memrel::bench
