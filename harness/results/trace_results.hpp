// What a trace replay adds to a cell's results: the optional "trace" object of memrel.cell/1
// (docs/results-schema.md). Absent for workload cells, so every reader of memrel.results/1 that
// came before it reads trace cells too.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memrel {

// The time series, one column per view, one row per probe; `event` is how many events had run.
// The last row is the probe after the release at the end.
struct TraceSeries {
  std::vector<std::uint64_t> event, requested;
  std::vector<std::optional<std::uint64_t>> allocated, reserved;
  std::vector<std::uint64_t> device_used;
  std::vector<std::int64_t> device_used_delta;
};

// A mark of the replay (the cell's marks[] hold the probes) and the event it follows.
struct TraceMarkRecord {
  std::string label;
  std::uint64_t event = 0;
  bool probed = true;  // false past the cap on probed marks (their event is still recorded)
};

// The recording allocator's reserved bytes, as the trace holds them (unscaled).
struct TraceReference {
  std::vector<std::uint64_t> event, bytes;
};

struct TraceReplay {
  std::string file, name, source_format, source_file;
  std::int64_t device = 0;
  std::string scale;  // "1" or "1/N": every size was divided by N, rounding up
  std::uint64_t events = 0, allocs = 0, frees = 0;
  std::uint64_t sample_every = 1;
  std::uint64_t peak_requested_event = 0;
  std::uint64_t ooms = 0;  // allocations that failed; the replay skipped them and went on
  std::optional<std::uint64_t> first_oom_event;
  std::uint64_t replay_ns = 0;                    // the whole replay loop, probes included
  std::uint64_t allocator_ns = 0;                 // allocate and deallocate calls only
  std::optional<double> ns_per_event;             // allocator_ns / events
  std::optional<std::int64_t> held_at_end_bytes;  // device used delta, all freed, no release
  std::map<std::string, std::uint64_t> median_latency_ns;  // alloc, free
  std::vector<TraceMarkRecord> marks;
  TraceSeries series;
  std::optional<TraceReference> recorded_reserved;
};

}  // namespace memrel
