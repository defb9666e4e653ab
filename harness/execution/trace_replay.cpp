#include "harness/execution/trace_replay.hpp"

#include <unistd.h>

#include <algorithm>
#include <limits>

#include "harness/execution/elapsed.hpp"
#include "platform/memory_limits.hpp"
#include "platform/path_for_json.hpp"

namespace memrel {
namespace {

std::uint32_t saturated(std::uint64_t ns) {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(ns, std::numeric_limits<std::uint32_t>::max()));
}

// The lower middle of the first n values (a real sample, as harness/results/metrics.cpp's median).
std::uint64_t median_of(std::vector<std::uint32_t>& values, std::size_t n) {
  auto middle = values.begin() + static_cast<std::ptrdiff_t>((n - 1) / 2);
  std::nth_element(values.begin(), middle, values.begin() + static_cast<std::ptrdiff_t>(n));
  return *middle;
}

}  // namespace

TraceReplayer::TraceReplayer(const Trace& trace, const TracePlan& plan, MemorySpace space)
    : trace_(trace), plan_(plan), space_(space) {
  long page = sysconf(_SC_PAGESIZE);
  if (page > 0) page_bytes_ = static_cast<std::uint64_t>(page);
  pointers_.assign(trace.blocks, nullptr);
  alloc_ns_.assign(trace.allocs, 0);
  free_ns_.assign(trace.frees, 0);
  out_.file = path_for_json(trace.path);
  out_.name = trace.name;
  out_.source_format = trace.source_format;
  out_.source_file = trace.source_file;
  out_.device = trace.device;
  out_.scale = trace_scale_text(plan.divisor);
  out_.events = trace.records.size();
  out_.allocs = trace.allocs;
  out_.frees = trace.frees;
  out_.sample_every = plan.sample_every;
  out_.peak_requested_event = plan.peak_event;
  if (trace.recorded_reserved)
    out_.recorded_reserved =
        TraceReference{trace.recorded_reserved->event, trace.recorded_reserved->bytes};
  const std::size_t points = plan.samples.size() + 2;  // + the start and the end after release
  TraceSeries& s = out_.series;
  s.event.reserve(points);
  s.requested.reserve(points);
  s.allocated.reserve(points);
  s.reserved.reserve(points);
  s.device_used.reserve(points);
  s.device_used_delta.reserve(points);
  replay_ooms_.reserve(1);
  plan_marks();
}

// start, the trace's own marks, the peak of requested bytes, the end (all freed, no release);
// ordered by event, the trace's marks before the peak at the same event.
void TraceReplayer::plan_marks() {
  const std::uint64_t end = trace_.records.size();
  auto add = [&](std::uint64_t event, const std::string& label, bool probed) {
    PlannedMark m;
    m.event = event;
    m.probed = probed;
    m.record.label = label;
    planned_.push_back(std::move(m));
  };
  planned_.reserve(trace_.marks.size() + 3);
  add(0, "trace-start", true);
  bool peak_added = false;
  for (std::size_t i = 0; i < trace_.marks.size(); ++i) {
    const TraceMark& m = trace_.marks[i];
    if (!peak_added && m.event > plan_.peak_event) {
      add(plan_.peak_event, "trace-peak-requested", true);
      peak_added = true;
    }
    add(m.event, m.label + "@" + std::to_string(m.event), i < kMaxProbedTraceMarks);
  }
  if (!peak_added) add(plan_.peak_event, "trace-peak-requested", true);
  add(end, "trace-end", true);
}

void TraceReplayer::touch(Allocator& allocator, void* p, std::uint64_t bytes) const {
  if (!allocator.blocks_are_real()) return;  // null: its blocks alias 256 bytes
  if (space_ == MemorySpace::kDevice) {
    allocator.fill(p, bytes);
    return;
  }
  volatile unsigned char* bytes_of = static_cast<unsigned char*>(p);
  for (std::uint64_t offset = 0; offset < bytes; offset += page_bytes_) bytes_of[offset] = 0x5a;
  bytes_of[bytes - 1] = 0x5a;  // the last page, when the block does not start on a page
}

void TraceReplayer::add_point(std::uint64_t event, const Snapshot& snapshot) {
  TraceSeries& s = out_.series;
  s.event.push_back(event);
  s.requested.push_back(snapshot.requested);
  s.allocated.push_back(snapshot.allocated);
  s.reserved.push_back(snapshot.reserved);
  s.device_used.push_back(snapshot.device_used);
  s.device_used_delta.push_back(snapshot.device_used_delta);
}

void TraceReplayer::run(Allocator& allocator, const TraceProbe& probe, CellResult& result) {
  const Clock::time_point start = Clock::now();
  const std::uint64_t divisor = plan_.divisor;
  std::uint64_t live = 0;
  std::size_t next_mark = 0, next_sample = 0;
  // Everything due once `done` events have run: the marks there, then the sample.
  auto due = [&](std::uint64_t done) {
    while (next_mark < planned_.size() && planned_[next_mark].event == done) {
      PlannedMark& m = planned_[next_mark++];
      m.record.step = 0;  // before the one step of a trace cell, the release at the end
      if (m.probed) m.record.at = probe(live, true);
    }
    if (next_sample < plan_.samples.size() && plan_.samples[next_sample] == done) {
      add_point(done, probe(live, false));
      ++next_sample;
    }
  };
  add_point(0, probe(0, false));
  due(0);
  const std::vector<TraceRecord>& records = trace_.records;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const TraceRecord& r = records[i];
    const std::uint64_t bytes = scaled_size(r.size, divisor);
    if (r.op == static_cast<std::uint8_t>(TraceOp::kAlloc)) {
      const Clock::time_point t = Clock::now();
      try {
        pointers_[r.block] = allocator.allocate(bytes);
      } catch (const OutOfMemory& e) {
        // The program got this block; this allocator could not give it. Count it and go on
        // without it, so that the rest of the trace still says what this allocator does.
        alloc_ns_[allocs_done_++] = saturated(elapsed_ns(t));
        if (out_.ooms++ == 0) {
          out_.first_oom_event = i;
          MarkRecord m;
          m.label = "replay-oom@" + std::to_string(i + 1);
          m.at = probe(live, true);
          replay_ooms_.push_back(std::move(m));
          result.reason = "event " + std::to_string(i) + ": " + e.what();
          if (space_ == MemorySpace::kHost) limit_at_first_oom_ = memory_limit_reached(bytes);
        }
        due(i + 1);
        continue;
      }
      alloc_ns_[allocs_done_++] = saturated(elapsed_ns(t));
      touch(allocator, pointers_[r.block], bytes);
      live += bytes;
    } else if (void* p = pointers_[r.block]) {
      const Clock::time_point t = Clock::now();
      allocator.deallocate(p, bytes);
      free_ns_[frees_done_++] = saturated(elapsed_ns(t));
      pointers_[r.block] = nullptr;
      live -= bytes;
    }
    due(i + 1);
  }
  finish(allocator, probe, result, start);
}

void TraceReplayer::finish(Allocator& allocator, const TraceProbe& probe, CellResult& result,
                           Clock::time_point start) {
  const std::uint64_t end = trace_.records.size();
  // The end: everything freed, nothing released. The release then shows what the allocator
  // kept of nothing, and what it gives back.
  ReleaseRecord release;
  release.step = 0;
  release.before = planned_.back().record.at;  // trace-end
  const Clock::time_point t = Clock::now();
  allocator.release();
  allocator.synchronize();
  release.latency_ns = elapsed_ns(t);
  release.after = probe(0, true);
  add_point(end, release.after);
  out_.replay_ns = elapsed_ns(start);
  out_.held_at_end_bytes = release.before.device_used_delta;

  StepRecord step;
  step.op = "release";
  step.location = "end of trace";
  step.latency_ns = release.latency_ns;
  step.after = release.after;
  result.steps.push_back(std::move(step));
  result.releases.push_back(release);

  // Marks in event order, the first failed allocation among them, the one after release last.
  auto record = [&](const MarkRecord& m, std::uint64_t event, bool probed) {
    out_.marks.push_back({m.label, event, probed});
    if (probed) result.marks.push_back(m);
  };
  std::size_t oom = 0;
  for (const PlannedMark& m : planned_) {
    for (; oom < replay_ooms_.size() && out_.first_oom_event.value_or(0) + 1 <= m.event; ++oom)
      record(replay_ooms_[oom], *out_.first_oom_event + 1, true);
    record(m.record, m.event, m.probed);
  }
  for (; oom < replay_ooms_.size(); ++oom)
    record(replay_ooms_[oom], *out_.first_oom_event + 1, true);
  MarkRecord after;
  after.label = "trace-end-after-release";
  after.step = 1;
  after.at = release.after;
  record(after, end, true);

  std::uint64_t allocator_ns = 0;
  for (std::size_t i = 0; i < allocs_done_; ++i) allocator_ns += alloc_ns_[i];
  for (std::size_t i = 0; i < frees_done_; ++i) allocator_ns += free_ns_[i];
  out_.allocator_ns = allocator_ns;
  if (end > 0) out_.ns_per_event = static_cast<double>(allocator_ns) / static_cast<double>(end);
  if (allocs_done_ > 0) out_.median_latency_ns["alloc"] = median_of(alloc_ns_, allocs_done_);
  if (frees_done_ > 0) out_.median_latency_ns["free"] = median_of(free_ns_, frees_done_);
  if (out_.ooms > 0) {
    result.status = "oom";
    result.reason = std::to_string(out_.ooms) + " of " + std::to_string(trace_.allocs) +
                    " allocations failed (skipped, with their frees); the first at " +
                    result.reason;
  }
  result.trace = std::move(out_);
}

}  // namespace memrel
