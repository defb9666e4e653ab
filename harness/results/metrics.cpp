#include "harness/results/metrics.hpp"

#include <algorithm>
#include <stdexcept>

namespace memrel {

std::uint64_t median(std::vector<std::uint64_t> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

namespace {

template <typename T>
void keep_max(std::optional<T>& peak, const std::optional<T>& value) {
  if (value && (!peak || *value > *peak)) peak = value;
}

}  // namespace

CellMetrics compute_metrics(const CellResult& cell) {
  CellMetrics m;
  std::vector<const Snapshot*> probes;
  for (const auto& mark : cell.marks) probes.push_back(&mark.at);
  for (const auto& step : cell.steps) probes.push_back(&step.after);
  for (const auto& r : cell.releases) {
    probes.push_back(&r.before);
    probes.push_back(&r.after);
  }
  // A trace cell's time series is probes too: its samples catch every stretch's peak.
  std::vector<Snapshot> series;
  if (cell.trace) {
    const TraceSeries& t = cell.trace->series;
    series.resize(std::min({t.event.size(), t.requested.size(), t.allocated.size(),
                            t.reserved.size(), t.device_used.size(), t.device_used_delta.size()}));
    for (std::size_t i = 0; i < series.size(); ++i) {
      series[i].requested = t.requested[i];
      series[i].allocated = t.allocated[i];
      series[i].reserved = t.reserved[i];
      series[i].device_used = t.device_used[i];
      series[i].device_used_delta = t.device_used_delta[i];
    }
  }
  for (const Snapshot& s : series) probes.push_back(&s);
  for (const Snapshot* s : probes) {
    m.peak_requested = std::max(m.peak_requested, s->requested);
    keep_max(m.peak_allocated, s->allocated);
    keep_max(m.peak_reserved, s->reserved);
    m.peak_device_used_delta = std::max(m.peak_device_used_delta, s->device_used_delta);
    if (s->reserved) {
      std::optional<std::int64_t> overhead =
          static_cast<std::int64_t>(*s->reserved) - static_cast<std::int64_t>(s->requested);
      keep_max(m.max_overhead_bytes, overhead);
    }
  }
  if (m.peak_reserved && m.peak_requested > 0) {
    m.overhead_ratio =
        static_cast<double>(*m.peak_reserved) / static_cast<double>(m.peak_requested);
  }
  if (m.peak_reserved && m.peak_allocated && *m.peak_reserved > 0) {
    m.utilization = static_cast<double>(*m.peak_allocated) / static_cast<double>(*m.peak_reserved);
  }

  std::uint64_t total_releasable = 0;
  std::int64_t total_returned = 0;
  for (const auto& r : cell.releases) {
    ReleaseEffect e;
    e.step = r.step;
    // Without an allocator view, what was releasable is what the driver held beyond the live
    // requests.
    std::int64_t reserved_before = r.before.reserved ? static_cast<std::int64_t>(*r.before.reserved)
                                                     : r.before.device_used_delta;
    std::int64_t live_after = r.after.allocated ? static_cast<std::int64_t>(*r.after.allocated)
                                                : static_cast<std::int64_t>(r.after.requested);
    e.releasable =
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, reserved_before - live_after));
    e.returned = static_cast<std::int64_t>(r.before.device_used) -
                 static_cast<std::int64_t>(r.after.device_used);
    if (e.releasable > 0) {
      e.effectiveness = static_cast<double>(e.returned) / static_cast<double>(e.releasable);
      total_releasable += e.releasable;
      total_returned += e.returned;
    }
    m.releases.push_back(e);
  }
  if (total_releasable > 0) {
    m.release_effectiveness =
        static_cast<double>(total_returned) / static_cast<double>(total_releasable);
  }
  if (!cell.releases.empty()) {
    const Snapshot& last = cell.releases.back().after;
    m.residual_bytes = last.device_used_delta - static_cast<std::int64_t>(last.requested);
  }

  std::map<std::string, std::vector<std::uint64_t>> latencies;
  for (const auto& step : cell.steps) {
    if (step.outcome == "ok" && (step.op == "alloc" || step.op == "free" || step.op == "release")) {
      latencies[step.op].push_back(step.latency_ns);
    }
  }
  for (auto& [op, values] : latencies) m.median_latency_ns[op] = median(values);
  // A trace cell's steps are its one release: its allocs and frees are timed by the replay.
  if (cell.trace) {
    for (const auto& [op, ns] : cell.trace->median_latency_ns) m.median_latency_ns[op] = ns;
  }
  return m;
}

}  // namespace memrel
