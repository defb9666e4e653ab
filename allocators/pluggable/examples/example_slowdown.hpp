// A planted slowdown for the example allocators, to measure what `memrel ab` can detect
// (scripts/detectable-slowdown, docs/gate.md "Families"): MEMREL_EXAMPLE_SLOWDOWN_NS=N makes
// every allocate and every free of the example spin for N nanoseconds before its work, so that
// one build run with two settings is a reference and a candidate slower by a known amount. Read
// once, when the library loads; absent, empty or 0: no slowdown. A busy wait, not a sleep: a
// sleep of a few hundred nanoseconds lasts tens of microseconds on Linux. Not part of what an
// allocator brings to memrel; it is here only because these examples are memrel's own.
#pragma once

#include <chrono>
#include <cstdlib>

namespace memrel_example {

inline std::chrono::nanoseconds planted_slowdown() {
  static const std::chrono::nanoseconds slowdown{[] {
    const char* v = std::getenv("MEMREL_EXAMPLE_SLOWDOWN_NS");
    const long long ns = v == nullptr ? 0 : std::strtoll(v, nullptr, 10);
    return ns > 0 ? ns : 0;
  }()};
  return slowdown;
}

inline void spin_planted_slowdown() {
  const std::chrono::nanoseconds slowdown = planted_slowdown();
  if (slowdown.count() == 0) return;
  const auto until = std::chrono::steady_clock::now() + slowdown;
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace memrel_example
