#include "gate/print/summary.hpp"

#include <sstream>

namespace memrel {
namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (char ch : s)
    out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

}  // namespace

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
      out << "| " << cell(f.title) << " | " << cell(r.subject + " · " + r.metric) << " | "
          << cell(r.baseline) << " | " << cell(r.current) << " | " << cell(r.change) << " | **"
          << verdict_name(r.verdict) << "** |\n";
    }
  }
  if (failing > listed) out << "\n… and " << failing - listed << " more in the full table.\n";
  return out.str();
}

}  // namespace memrel
