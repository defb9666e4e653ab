#include "gate/print/json.hpp"

#include <cstddef>
#include <map>

#include "gate/rules/tolerances.hpp"

namespace memrel {
namespace {

nlohmann::json row_json(const Row& r) {
  return {{"subject", r.subject},
          {"metric", r.metric},
          {"baseline", r.baseline},
          {"current", r.current},
          {"change", r.change},
          {"p_value", r.p_value ? nlohmann::json(*r.p_value) : nlohmann::json(nullptr)},
          {"verdict", verdict_name(r.verdict)},
          {"reason", r.reason}};
}

nlohmann::json rules_json(const Report& report, const CompareOptions& options) {
  nlohmann::json tolerance = nullptr;  // the defaults (docs/gate.md), which differ by figure
  if (options.byte_tolerance) {
    tolerance = {{"absolute_bytes", options.byte_tolerance->absolute},
                 {"relative", options.byte_tolerance->relative}};
  }
  return {{"byte_tolerance", tolerance},
          {"alpha", options.alpha},
          {"latency_min_change", options.latency_min_change},
          {"min_repetitions", kMinRepetitions},
          {"latency_gated", options.gate_latency},
          {"machine_drift",
           report.machine_drift ? nlohmann::json(*report.machine_drift) : nlohmann::json(nullptr)},
          {"drift_spread",
           report.drift_spread ? nlohmann::json(*report.drift_spread) : nlohmann::json(nullptr)}};
}

nlohmann::json summary_json(const Report& report) {
  // Every verdict counted, the absent ones as 0, so a reader never has to guess a missing key.
  std::map<std::string, std::size_t> counts;
  for (const char* name : verdict_names()) counts[name] = 0;
  for (const auto& f : report.files)
    for (const auto& r : f.rows) ++counts[verdict_name(r.verdict)];
  const Summary s = report.summary();
  const int exit_code = report.exit_code();
  return {
      {"counts", counts},
      {"compared", s.compared},
      {"result", exit_code ? "FAIL" : "PASS"},
      {"exit_code", exit_code},
      {"exit_meaning", exit_code ? "at least one regression, or a figure of the baseline missing"
                                 : "no regression and nothing missing"}};
}

}  // namespace

nlohmann::json to_verdict_json(const Report& report, const CompareOptions& options) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : report.files) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : f.rows) rows.push_back(row_json(r));
    files.push_back({{"title", f.title},
                     {"baseline", f.baseline_path},
                     {"current", f.current_path},
                     {"rows", rows}});
  }
  return {{"schema", kGateVerdictsSchema},
          {"baseline", report.baseline_path},
          {"current", report.current_path},
          {"rules", rules_json(report, options)},
          {"files", files},
          {"summary", summary_json(report)}};
}

std::string to_verdict_json_text(const Report& report, const CompareOptions& options) {
  return to_verdict_json(report, options)
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

}  // namespace memrel
