// What a cell decides about a trace before it replays it (docs/traces.md, "Replay in a cell"):
// the scale, the peak of requested bytes at that scale, and the events after which it probes.
// Pure arithmetic on the records, so it is tested without an allocator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/workload/trace_file.hpp"

namespace memrel {

// Every size is divided by the divisor, rounding up (so no request becomes 0 bytes).
inline std::uint64_t scaled_size(std::uint64_t size, std::uint64_t divisor) {
  return size / divisor + (size % divisor != 0);
}

// "auto" -> 0, "1" -> 1, "1/N" -> N. Throws std::invalid_argument naming --trace-scale.
std::uint64_t parse_trace_scale(const std::string& text);
std::string trace_scale_text(std::uint64_t divisor);  // the inverse: 0 -> "auto", N -> "1/N"

// The divisor "auto" means: 1 when the trace's peak of requested bytes fits `capacity` (a host
// backend's --host-capacity), else the smallest power of two that makes it fit. Device
// backends replay at 1 (a trace recorded on a GPU is sized for one); the cell decides which.
std::uint64_t auto_trace_divisor(const Trace& trace, std::uint64_t capacity);

struct TracePlan {
  std::uint64_t divisor = 1;
  std::uint64_t peak_requested = 0;  // at this scale
  std::uint64_t peak_event = 0;      // events done when requested first reaches the peak
  std::uint64_t sample_every = 1;
  // Events after which the time series is probed, ascending: every sample_every events, and in
  // each stretch of sample_every events the event where requested is highest (so no peak falls
  // between two samples), and the last event.
  std::vector<std::uint64_t> samples;
};

// target_points: how many regular samples a trace gets at most (each stretch adds its peak).
TracePlan make_trace_plan(const Trace& trace, std::uint64_t divisor,
                          std::uint64_t target_points = 2000);

}  // namespace memrel
