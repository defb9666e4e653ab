#include "gate/print/summary.hpp"

#include <sstream>

#include "gate/format.hpp"
#include "gate/print/change_column.hpp"

namespace memrel {

std::string to_summary_markdown(const Report& report, std::size_t max_rows) {
  Summary s = report.summary();
  std::ostringstream out;
  out << "### memrel gate: " << (report.exit_code() ? "FAIL" : "PASS") << "\n\n";
  out << "| compared | regressions | missing | new | improved | info | skipped |\n"
      << "|---:|---:|---:|---:|---:|---:|---:|\n"
      << "| " << s.compared << " | " << s.regressions << " | " << s.missing << " | " << s.added
      << " | " << s.improved << " | " << s.info << " | " << s.skipped << " |\n";
  if (report.machine_drift) {
    out << "\nMachine drift divided out: x" << *report.machine_drift << ".\n";
  }
  std::size_t failing = s.regressions + s.missing, listed = 0;
  if (failing == 0) return out.str();
  out << "\n| file | subject · metric | baseline | current | change | verdict |\n"
      << "|---|---|---|---|---|---|\n";
  for (const auto& f : report.files) {
    for (const auto& r : f.rows) {
      if (r.verdict != Verdict::kRegression && r.verdict != Verdict::kMissing) continue;
      if (listed == max_rows) break;
      ++listed;
      out << "| " << format::markdown_cell(f.title) << " | "
          << format::markdown_cell(r.subject + " · " + r.metric) << " | "
          << format::markdown_cell(r.baseline) << " | " << format::markdown_cell(r.current) << " | "
          << format::markdown_cell(change_column(r)) << " | **" << verdict_name(r.verdict)
          << "** |\n";
    }
  }
  if (failing > listed) out << "\n… and " << failing - listed << " more in the full table.\n";
  return out.str();
}

}  // namespace memrel
