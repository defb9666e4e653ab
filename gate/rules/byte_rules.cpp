#include "gate/rules/byte_rules.hpp"

#include <algorithm>
#include <cmath>

#include "gate/format.hpp"
#include "harness/results/results.hpp"

namespace memrel {

ByteTolerance byte_tolerance_for(ByteSource source, bool host, const CompareOptions& options) {
  if (options.byte_tolerance) return *options.byte_tolerance;
  return (source == ByteSource::kObserved || host) ? kObservedBytesTolerance
                                                   : kAllocatorBytesTolerance;
}

void compare_bytes(std::vector<Row>& rows, const std::string& subject, const std::string& metric,
                   std::optional<std::int64_t> base, std::optional<std::int64_t> cur,
                   const ByteTolerance& tolerance) {
  if (!base && !cur) return;
  if (!cur) {
    add_row(rows, subject, metric, format::bytes(*base), "not reported", "", Verdict::kMissing);
    return;
  }
  if (!base) {
    add_row(rows, subject, metric, "not reported", format::bytes(*cur), "", Verdict::kNew);
    return;
  }
  // The readers keep every figure within 2^53 (docs/results-schema.md, "Ranges"), so this cannot
  // overflow; checked all the same, because a wrapped difference would read as an improvement.
  std::int64_t diff = 0;
  if (__builtin_sub_overflow(*cur, *base, &diff))
    throw ResultsError(subject + ": " + metric + ": " + std::to_string(*cur) + " - " +
                       std::to_string(*base) + " does not fit in 64 bits");
  double allowed = std::max(static_cast<double>(tolerance.absolute),
                            tolerance.relative * std::fabs(static_cast<double>(*base)));
  Verdict v = Verdict::kOk;
  if (static_cast<double>(diff) > allowed)
    v = Verdict::kRegression;
  else if (static_cast<double>(-diff) > allowed)
    v = Verdict::kImproved;
  std::string reason;
  if (diff != 0 && v == Verdict::kOk) reason = "within " + format::tolerance(allowed);
  add_row(rows, subject, metric, format::bytes(*base), format::bytes(*cur),
          format::byte_change(diff, *base), v, reason);
}

void show_bytes_not_judged(std::vector<Row>& rows, const std::string& subject,
                           const std::string& metric, std::optional<std::int64_t> base,
                           std::optional<std::int64_t> cur, const std::string& why) {
  if (!base && !cur) return;
  std::string change;
  if (base && cur) {
    std::int64_t diff = 0;
    if (!__builtin_sub_overflow(*cur, *base, &diff)) change = format::byte_change(diff, *base);
  }
  add_row(rows, subject, metric, base ? format::bytes(*base) : "not reported",
          cur ? format::bytes(*cur) : "not reported", change, Verdict::kInfo, why);
}

void compare_effectiveness(std::vector<Row>& rows, const std::string& subject,
                           const std::optional<double>& base, const std::optional<double>& cur,
                           std::uint64_t base_releasable, std::uint64_t cur_releasable,
                           const ByteTolerance& observed) {
  const std::string metric = "release_effectiveness";
  if (!base && !cur) return;  // nothing was releasable in either run: nothing to guard
  if (base && !cur) {
    // Undefined means nothing was releasable at any release step: the workload or the backend
    // changed so that the gate can no longer see how well release works.
    add_row(rows, subject, metric, format::ratio(base), "undefined", "", Verdict::kRegression,
            "now undefined (nothing releasable)");
    return;
  }
  if (!base) {
    add_row(rows, subject, metric, "undefined", format::ratio(cur), "", Verdict::kInfo,
            "now defined");
    return;
  }
  double diff = *cur - *base;
  const double releasable =
      static_cast<double>(std::min(base_releasable, cur_releasable));  // > 0: both are defined
  const double allowed =
      std::max(kEffectivenessTolerance,
               releasable > 0 ? static_cast<double>(observed.absolute) / releasable : 0.0);
  if (allowed >= 1.0) {
    // Fewer bytes were releasable than the bytes themselves may move: the ratio says nothing.
    add_row(rows, subject, metric, format::ratio(base), format::ratio(cur),
            format::printf_string("%+.4f", diff), Verdict::kInfo,
            "not judged: " + format::bytes(static_cast<std::int64_t>(releasable)) +
                " releasable is within the observed tolerance (" +
                format::tolerance(static_cast<double>(observed.absolute)) + ")");
    return;
  }
  Verdict v = Verdict::kOk;
  if (diff < -allowed)
    v = Verdict::kRegression;
  else if (diff > allowed)
    v = Verdict::kImproved;
  std::string change = diff == 0 ? "0" : format::printf_string("%+.4f", diff);
  std::string reason;
  if (diff != 0 && v == Verdict::kOk) {
    reason = format::printf_string("within %.2f", allowed);
    if (allowed > kEffectivenessTolerance)
      reason += " (" + format::tolerance(static_cast<double>(observed.absolute)) + " of " +
                format::bytes(static_cast<std::int64_t>(releasable)) + " releasable)";
  }
  add_row(rows, subject, metric, format::ratio(base), format::ratio(cur), change, v, reason);
}

}  // namespace memrel
