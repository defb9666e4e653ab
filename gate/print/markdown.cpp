#include "gate/print/markdown.hpp"

#include <cmath>
#include <sstream>

#include "gate/format.hpp"
#include "gate/print/change_column.hpp"

namespace memrel {

std::string to_markdown(const Report& report, const CompareOptions& options) {
  std::ostringstream out;
  Summary s = report.summary();
  out << "## memrel compare\n\n";
  // The paths as text, not code spans: a backquote or a newline in a file's name broke out of one
  // (the tenth adversarial pass, c9-compare-file-name-newline-md).
  out << "Baseline " << format::markdown_cell(report.baseline_path) << ", current "
      << format::markdown_cell(report.current_path) << ".\n";
  if (options.byte_tolerance) {
    out << "Bytes: tolerance "
        << format::tolerance(static_cast<double>(options.byte_tolerance->absolute))
        << format::printf_string(" or %.1f%%", 100 * options.byte_tolerance->relative)
        << " (whichever is larger) for every figure. ";
  } else {
    out << "Bytes: allocator-reported figures of device backends exact; driver-observed figures "
           "and host "
           "backends within 2 MiB or 1% (whichever is larger). ";
  }
  out << format::printf_string("Latency: Mann-Whitney U, two-sided, alpha %.3g", options.alpha)
      << format::printf_string(", minimum median change %.0f%%", 100 * options.latency_min_change)
      << ", at least " << kMinRepetitions << " repetitions a side"
      << (options.gate_latency ? "" : "; latency NOT gated (--no-latency-gate)");
  if (report.machine_drift) {
    out << format::printf_string("; machine drift x%.3f divided out", *report.machine_drift)
        << " (--normalize-drift: the median current/baseline ratio over every benchmark)";
    if (report.drift_spread) {
      out << format::printf_string(", its spread over the benchmarks x%.3f",
                                   std::exp(*report.drift_spread))
          << " (between two separate runs a latency must stand out from it)";
    }
  }
  bool families = false;
  for (const auto& f : report.files)
    for (const auto& r : f.rows)
      families |= r.metric.find("(family, rounds paired)") != std::string::npos;
  if (families) {
    out << "; per family of sizes (`.../*`): Wilcoxon signed-rank over the rounds, each round's "
           "candidate/reference ratio (mean of log over the sizes), in the same false discovery "
           "rate";
  }
  out << ". See docs/gate.md.\n";
  for (const auto& f : report.files) {
    out << "\n### " << format::markdown_heading(f.title) << "\n\n";
    out << "| metric | baseline | current | change | verdict |\n";
    out << "|---|---|---|---|---|\n";
    for (const auto& r : f.rows) {
      std::string verdict = verdict_name(r.verdict);
      if (r.verdict == Verdict::kRegression || r.verdict == Verdict::kMissing)
        verdict = "**" + verdict + "**";
      out << "| " << format::markdown_cell(r.subject + " · " + r.metric) << " | "
          << format::markdown_cell(r.baseline) << " | " << format::markdown_cell(r.current) << " | "
          << format::markdown_cell(change_column(r)) << " | " << verdict << " |\n";
    }
  }
  out << "\nSummary: " << s.compared << " compared, " << s.regressions << " regressions, "
      << s.missing << " missing, " << s.added << " new (" << s.improved << " improved, " << s.info
      << " info, " << s.skipped << " skipped): " << (report.exit_code() ? "FAIL" : "PASS") << ".\n";
  return out.str();
}

}  // namespace memrel
