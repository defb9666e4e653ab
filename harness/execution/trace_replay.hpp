// Replays a trace's events on an allocator inside a cell (docs/traces.md, "Replay in a cell"):
// the requests in their recorded order, probes at the marks and at the plan's samples, and a
// release at the end, whose effect is the cell's release record.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"
#include "harness/results/results.hpp"
#include "harness/workload/trace_file.hpp"
#include "harness/workload/trace_plan.hpp"

namespace memrel {

// The cell's probe, with `requested` as the bytes the replay holds live; with_process adds the
// NVML figure (milliseconds: marks and releases only, never the time series).
using TraceProbe = std::function<Snapshot(std::uint64_t requested, bool with_process)>;

// A trace's marks beyond this many are recorded (label, event) without a probe: an RMM log can
// hold thousands of allocate failures, and a mark's probe takes milliseconds on a device.
constexpr std::size_t kMaxProbedTraceMarks = 256;

class TraceReplayer {
 public:
  // Allocates everything the replay keeps (block table, latencies, series, marks), so that the
  // cell can construct it before taking its baseline: with a host backend, bookkeeping made
  // during the replay would land in the very heap being measured.
  // `space`: host memory is touched one byte a page after each allocation, device memory is
  // filled by the backend (Allocator::fill) as a workload's is. A trace allocates terabytes over
  // its life; the same pages become resident with a 4096th of the writes.
  TraceReplayer(const Trace& trace, const TracePlan& plan, MemorySpace space);

  // Fills the result's marks, steps (the release at the end), releases and trace. An allocation
  // that fails is counted and skipped (with its free), and the cell's status becomes "oom"; any
  // other allocator error is thrown, as a workload step's would be.
  void run(Allocator& allocator, const TraceProbe& probe, CellResult& result);

  // The memory limit the first failed allocation came within reach of (memory_limit_reached,
  // taken as it failed), or "": host memory only.
  const std::string& limit_at_first_oom() const { return limit_at_first_oom_; }

 private:
  struct PlannedMark {
    std::uint64_t event = 0;
    bool probed = true;
    MarkRecord record;
  };

  void plan_marks();
  void add_point(std::uint64_t event, const Snapshot& s);
  void finish(Allocator& allocator, const TraceProbe& probe, CellResult& result,
              std::chrono::steady_clock::time_point start);

  void touch(Allocator& allocator, void* p, std::uint64_t bytes) const;

  const Trace& trace_;
  TracePlan plan_;
  MemorySpace space_;
  std::string limit_at_first_oom_;
  std::uint64_t page_bytes_ = 4096;
  std::vector<void*> pointers_;                    // block -> its memory; null when it failed
  std::vector<std::uint32_t> alloc_ns_, free_ns_;  // per call, saturated at ~4.3 s
  std::size_t allocs_done_ = 0, frees_done_ = 0;
  std::vector<PlannedMark> planned_;  // in event order
  TraceReplay out_;
  std::vector<MarkRecord> replay_ooms_;  // at most one: the first failed allocation
};

}  // namespace memrel
