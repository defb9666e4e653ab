#include "harness/results/allocator_frontier.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "platform/path_for_json.hpp"

namespace memrel {
namespace {

std::string mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

std::string ns(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f ns", v);
  return text;
}

std::string percent(double part, double whole) {
  if (whole == 0) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f %%", 100.0 * part / whole);
  return text;
}

std::uint64_t reserved_or_used(const Snapshot& s) {
  if (s.reserved) return *s.reserved;
  return s.device_used_delta > 0 ? static_cast<std::uint64_t>(s.device_used_delta) : 0;
}

bool dominates(const FrontierPoint& a, const FrontierPoint& b) {
  bool no_worse = a.peak_reserved <= b.peak_reserved &&
                  a.held_before_release <= b.held_before_release &&
                  a.held_after_release <= b.held_after_release && a.ns_per_event <= b.ns_per_event;
  bool better = a.peak_reserved < b.peak_reserved ||
                a.held_before_release < b.held_before_release ||
                a.held_after_release < b.held_after_release || a.ns_per_event < b.ns_per_event;
  return no_worse && better;
}

}  // namespace

FrontierPoint frontier_point(const CellResult& cell, const std::string& apply_line) {
  FrontierPoint p;
  p.backend = cell.backend;
  p.settings = cell.setup.settings;
  p.apply_line = apply_line;
  p.status = cell.status;
  p.reason = cell.reason;
  if (cell.metrics.peak_reserved)
    p.peak_reserved = *cell.metrics.peak_reserved;
  else if (cell.metrics.peak_device_used_delta > 0)
    p.peak_reserved = static_cast<std::uint64_t>(cell.metrics.peak_device_used_delta);
  if (!cell.releases.empty()) {
    p.held_before_release = reserved_or_used(cell.releases.back().before);
    p.held_after_release = reserved_or_used(cell.releases.back().after);
  }
  if (cell.trace && cell.trace->ns_per_event) p.ns_per_event = *cell.trace->ns_per_event;
  return p;
}

void mark_frontier(std::vector<FrontierPoint>& points) {
  for (FrontierPoint& p : points) {
    p.on_frontier = p.status == "ok" && !p.floor;
    for (const FrontierPoint& q : points) {
      if (p.on_frontier && q.status == "ok" && !q.floor && dominates(q, p)) p.on_frontier = false;
    }
  }
}

std::optional<std::size_t> recommend(const std::vector<FrontierPoint>& points) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const FrontierPoint& p = points[i];
    if (!p.on_frontier) continue;
    if (!best || p.peak_reserved < points[*best].peak_reserved ||
        (p.peak_reserved == points[*best].peak_reserved &&
         p.ns_per_event < points[*best].ns_per_event))
      best = i;
  }
  return best;
}

nlohmann::json to_json(const Advice& advice) {
  nlohmann::json points = nlohmann::json::array();
  for (const FrontierPoint& p : advice.points) {
    nlohmann::json j = {{"backend", p.backend},
                        {"settings", p.settings},
                        {"apply", p.apply_line},
                        {"status", p.status},
                        {"on_frontier", p.on_frontier}};
    if (!p.reason.empty()) j["reason"] = p.reason;
    if (p.status == "ok") {
      j["peak_reserved_bytes"] = p.peak_reserved;
      j["held_before_release_bytes"] = p.held_before_release;
      j["held_after_release_bytes"] = p.held_after_release;
      j["allocator_ns_per_event"] = p.ns_per_event;
    }
    points.push_back(j);
  }
  nlohmann::json out = {{"schema", kAdviseSchema},
                        {"trace", path_for_json(advice.trace)},
                        {"trace_name", advice.trace_name},
                        {"points", points},
                        {"baseline", nullptr},
                        {"baseline_reason", advice.baseline_reason},
                        {"recommendation", nullptr}};
  if (advice.baseline) out["baseline"] = advice.points[*advice.baseline].backend;
  if (advice.recommended) {
    const FrontierPoint& r = advice.points[*advice.recommended];
    nlohmann::json rec = {{"backend", r.backend},
                          {"apply", r.apply_line},
                          {"predicted_peak_reserved_bytes", r.peak_reserved}};
    if (advice.baseline) {
      const FrontierPoint& b = advice.points[*advice.baseline];
      rec["baseline_peak_reserved_bytes"] = b.peak_reserved;
      rec["saving_bytes"] =
          static_cast<std::int64_t>(b.peak_reserved) - static_cast<std::int64_t>(r.peak_reserved);
      rec["baseline_allocator_ns_per_event"] = b.ns_per_event;
    }
    rec["allocator_ns_per_event"] = r.ns_per_event;
    out["recommendation"] = rec;
  }
  return out;
}

std::string frontier_table(const Advice& advice) {
  std::ostringstream out;
  out << "frontier (peak reserved, held at the end before / after a release, allocator time per "
         "event):\n";
  for (std::size_t i = 0; i < advice.points.size(); ++i) {
    const FrontierPoint& p = advice.points[i];
    if (!p.on_frontier) continue;
    out << "  " << mib(p.peak_reserved) << "  " << mib(p.held_before_release) << " / "
        << mib(p.held_after_release) << "  " << ns(p.ns_per_event) << "  " << p.backend
        << (advice.baseline && *advice.baseline == i ? "  (baseline)" : "") << "\n";
  }
  for (const FrontierPoint& p : advice.points) {
    if (p.floor && p.status == "ok")
      out << "  " << mib(p.peak_reserved) << "  " << mib(p.held_before_release) << " / "
          << mib(p.held_after_release) << "  " << ns(p.ns_per_event) << "  " << p.backend
          << "  (memrel's floor: allocates nothing real; never recommended)\n";
  }
  std::size_t off = 0, failed = 0;
  for (const FrontierPoint& p : advice.points) {
    off += p.status == "ok" && !p.on_frontier && !p.floor;
    failed += p.status != "ok" && p.status != "unavailable";
  }
  out << "  (" << off << " dominated";
  if (failed) out << ", " << failed << " failed or out of memory";
  out << ")\n";
  return out.str();
}

std::string recommendation_text(const Advice& advice) {
  if (!advice.recommended) {
    // Any other point that replayed it would be on the frontier, and one of them recommended.
    bool floor_ok = false;
    for (const FrontierPoint& p : advice.points)
      floor_ok = floor_ok || (p.floor && p.status == "ok");
    return floor_ok ? "no recommendation: only memrel's floor (null) replayed the trace; give "
                      "the allocators to choose from (-b)\n"
                    : "no recommendation: no configuration replayed the trace\n";
  }
  const FrontierPoint& r = advice.points[*advice.recommended];
  std::ostringstream out;
  out << "recommendation: " << r.backend << "\n  set: " << r.apply_line
      << "\n  predicted peak reserved: " << mib(r.peak_reserved);
  if (advice.baseline) {
    const FrontierPoint& b = advice.points[*advice.baseline];
    std::int64_t saving =
        static_cast<std::int64_t>(b.peak_reserved) - static_cast<std::int64_t>(r.peak_reserved);
    out << "; baseline " << b.backend << " (" << advice.baseline_reason
        << "): " << mib(b.peak_reserved) << "; saving " << (saving < 0 ? "-" : "")
        << mib(static_cast<std::uint64_t>(std::llabs(saving))) << " ("
        << percent(static_cast<double>(-saving), static_cast<double>(b.peak_reserved)) << ")"
        << "\n  cost: allocator time " << ns(r.ns_per_event) << " per event against "
        << ns(b.ns_per_event) << " (" << percent(r.ns_per_event - b.ns_per_event, b.ns_per_event)
        << "); held at the end " << mib(r.held_before_release) << " before a release, "
        << mib(r.held_after_release) << " after (baseline " << mib(b.held_before_release) << ", "
        << mib(b.held_after_release) << ")";
  }
  out << "\n";
  return out.str();
}

}  // namespace memrel
