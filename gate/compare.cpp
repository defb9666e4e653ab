#include "gate/compare.hpp"

#include <optional>
#include <vector>

#include "gate/read/input_file.hpp"
#include "gate/read/pairing.hpp"
#include "gate/rules/cell_rules.hpp"
#include "gate/rules/fingerprint_rules.hpp"
#include "gate/rules/latency_rules.hpp"
#include "gate/rules/machine_drift.hpp"

namespace memrel {
namespace {

// A pair as read: either side absent when only the other folder has the file.
struct ReadPair {
  InputPair names;
  std::optional<InputFile> baseline, current;
};

std::vector<ReadPair> read_pairs(const std::vector<InputPair>& pairs,
                                 const CompareOptions& options) {
  std::vector<ReadPair> out;
  for (const auto& p : pairs) {
    ReadPair r{p, std::nullopt, std::nullopt};
    if (!p.baseline_path.empty()) r.baseline = read_input_file(p.baseline_path);
    if (!p.current_path.empty()) r.current = read_input_file(p.current_path);
    if (r.baseline && r.current) {
      const InputFile& b = *r.baseline;
      const InputFile& c = *r.current;
      if (b.kind != c.kind) {
        throw ResultsError(c.path + ": " + input_kind_name(c.kind) + ", but the baseline " +
                           b.path + " is " + input_kind_name(b.kind));
      }
      if (b.gpu && c.gpu && *b.gpu != *c.gpu && !options.allow_different_device) {
        throw ResultsError(c.path + ": GPU \"" + *c.gpu + "\" is not the baseline's \"" + *b.gpu +
                           "\" (" + b.path + "); pass --allow-different-device to compare anyway");
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

FileComparison compare_read_pair(const ReadPair& pair, const CompareOptions& given_options) {
  CompareOptions options = given_options;
  const std::string& name = pair.names.name;
  if (!pair.baseline || !pair.current) {
    FileComparison fc;
    fc.title = name;
    fc.baseline_path = pair.names.baseline_path;
    fc.current_path = pair.names.current_path;
    if (pair.baseline)
      add_row(fc.rows, name, "file", "present", "absent", "", Verdict::kMissing,
              "not produced by this run");
    else
      add_row(fc.rows, name, "file", "absent", "present", "", Verdict::kNew, "not in the baseline");
    return fc;
  }
  const InputFile& b = *pair.baseline;
  const InputFile& c = *pair.current;
  std::optional<Row> fingerprint_row;
  if (b.kind == InputKind::kBenchmark) {
    // Suite latencies are never gated; benchmark latencies only on one machine.
    LatencyStanding standing = latency_standing(b.fingerprint, c.fingerprint, options.interleaved);
    fingerprint_row = standing.row;
    if (!standing.may_gate && options.gate_latency) {
      options.gate_latency = false;
      options.latency_not_gated_because = standing.why_not;
    }
  }
  FileComparison fc = b.kind == InputKind::kResults
                          ? compare_runs(b.results, c.results, options)
                          : compare_benchmark_runs(b.benchmarks, c.benchmarks, options);
  if (fingerprint_row) fc.rows.insert(fc.rows.begin(), *fingerprint_row);
  if (b.gpu != c.gpu) {
    // Only reached when the difference is allowed or one side records no GPU at all.
    std::vector<Row> rows;
    add_row(rows, "file", "GPU", b.gpu.value_or("none recorded"), c.gpu.value_or("none recorded"),
            "", Verdict::kInfo, "different device: figures may differ for that reason");
    fc.rows.insert(fc.rows.begin(), rows.begin(), rows.end());
  }
  fc.title = name;
  fc.baseline_path = b.path;
  fc.current_path = c.path;
  return fc;
}

}  // namespace

Report compare_paths(const std::string& baseline, const std::string& current,
                     const CompareOptions& given_options) {
  CompareOptions options = given_options;
  Report report;
  report.baseline_path = baseline;
  report.current_path = current;
  std::vector<ReadPair> pairs = read_pairs(pair_inputs(baseline, current), options);
  if (options.normalize_drift) {
    std::vector<BenchmarkRunPair> timed;
    for (const auto& p : pairs) {
      if (p.baseline && p.current && p.baseline->kind == InputKind::kBenchmark)
        timed.push_back({&p.baseline->benchmarks, &p.current->benchmarks});
    }
    options.machine_drift = machine_drift(timed);
    report.machine_drift = options.machine_drift;
  }
  for (const auto& p : pairs) report.files.push_back(compare_read_pair(p, options));
  return report;
}

}  // namespace memrel
