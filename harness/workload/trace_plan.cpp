#include "harness/workload/trace_plan.hpp"

#include <algorithm>
#include <stdexcept>

namespace memrel {

std::uint64_t parse_trace_scale(const std::string& text) {
  if (text == "auto") return 0;
  if (text == "1") return 1;
  const std::string usage = "--trace-scale: '" + text +
                            "' is not auto, 1 or 1/N (N a whole number from 1 to 999999999999999)";
  // No leading zero, as every whole number memrel reads (`1/01` was taken: the fifty-eighth
  // adversarial pass, c4-leading-zero-trace-scale-cpus).
  if (text.compare(0, 2, "1/") != 0 || text.size() == 2 || text[2] == '0' ||
      text.find_first_not_of("0123456789", 2) != std::string::npos || text.size() > 2 + 15)
    throw std::invalid_argument(usage);
  std::uint64_t n = std::stoull(text.substr(2));
  if (n == 0) throw std::invalid_argument(usage);
  return n;
}

std::string trace_scale_text(std::uint64_t divisor) {
  if (divisor == 0) return "auto";
  return divisor == 1 ? "1" : "1/" + std::to_string(divisor);
}

namespace {

std::uint64_t scaled_peak(const Trace& trace, std::uint64_t divisor) {
  std::uint64_t live = 0, peak = 0;
  for (const TraceRecord& r : trace.records) {
    std::uint64_t bytes = scaled_size(r.size, divisor);
    if (r.op == static_cast<std::uint8_t>(TraceOp::kAlloc)) {
      live += bytes;
      if (live > peak) peak = live;
    } else {
      live -= bytes;
    }
  }
  return peak;
}

}  // namespace

std::uint64_t auto_trace_divisor(const Trace& trace, std::uint64_t capacity) {
  if (capacity == 0 || trace.peak_requested_bytes <= capacity) return 1;
  // Rounding up adds at most one byte per live block, so start at the bound and double.
  std::uint64_t divisor = 1;
  while (divisor < trace.peak_requested_bytes / capacity) divisor <<= 1;
  while (divisor < (std::uint64_t{1} << 48) && scaled_peak(trace, divisor) > capacity)
    divisor <<= 1;
  return divisor;
}

TracePlan make_trace_plan(const Trace& trace, std::uint64_t divisor, std::uint64_t target_points) {
  TracePlan plan;
  plan.divisor = divisor == 0 ? 1 : divisor;
  const std::uint64_t events = trace.records.size();
  plan.sample_every = std::max<std::uint64_t>(1, (events + target_points - 1) / target_points);
  plan.samples.reserve(2 * (events / plan.sample_every + 1));
  std::uint64_t live = 0;
  std::uint64_t stretch_peak = 0, stretch_peak_event = 0;  // highest in the current stretch
  for (std::uint64_t i = 0; i < events; ++i) {
    const TraceRecord& r = trace.records[i];
    std::uint64_t bytes = scaled_size(r.size, plan.divisor);
    live = r.op == static_cast<std::uint8_t>(TraceOp::kAlloc) ? live + bytes : live - bytes;
    const std::uint64_t done = i + 1;
    if (live > plan.peak_requested) {
      plan.peak_requested = live;
      plan.peak_event = done;
    }
    if (live > stretch_peak || stretch_peak_event == 0) {
      stretch_peak = live;
      stretch_peak_event = done;
    }
    if (done % plan.sample_every == 0 || done == events) {
      if (stretch_peak_event != done) plan.samples.push_back(stretch_peak_event);
      plan.samples.push_back(done);
      stretch_peak = 0;
      stretch_peak_event = 0;
    }
  }
  return plan;
}

}  // namespace memrel
