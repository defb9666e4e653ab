#include "gate/verdict.hpp"

#include <utility>

namespace memrel {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kInfo:
      return "info";
    case Verdict::kMissing:
      return "missing";
    case Verdict::kNew:
      return "new";
    case Verdict::kSkipped:
      return "skipped";
  }
  return "?";
}

const std::vector<const char*>& verdict_names() {
  static const std::vector<const char*> names = {
      verdict_name(Verdict::kOk),         verdict_name(Verdict::kImproved),
      verdict_name(Verdict::kRegression), verdict_name(Verdict::kInfo),
      verdict_name(Verdict::kMissing),    verdict_name(Verdict::kNew),
      verdict_name(Verdict::kSkipped)};
  return names;
}

void add_row(std::vector<Row>& rows, const std::string& subject, const std::string& metric,
             std::string baseline, std::string current, std::string change, Verdict verdict,
             std::string reason, std::optional<double> p_value) {
  rows.push_back({subject, metric, std::move(baseline), std::move(current), std::move(change),
                  p_value, std::move(reason), verdict});
}

Summary Report::summary() const {
  Summary s;
  for (const auto& f : files) {
    for (const auto& r : f.rows) {
      switch (r.verdict) {
        case Verdict::kOk:
          ++s.compared;
          break;
        case Verdict::kImproved:
          ++s.compared;
          ++s.improved;
          break;
        case Verdict::kRegression:
          ++s.compared;
          ++s.regressions;
          break;
        case Verdict::kInfo:
          ++s.compared;
          ++s.info;
          break;
        case Verdict::kMissing:
          ++s.missing;
          break;
        case Verdict::kNew:
          ++s.added;
          break;
        case Verdict::kSkipped:
          ++s.skipped;
          break;
      }
    }
  }
  return s;
}

int Report::exit_code() const {
  Summary s = summary();
  return (s.regressions > 0 || s.missing > 0) ? 1 : 0;
}

}  // namespace memrel
