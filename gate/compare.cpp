#include "gate/compare.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "gate/read/ab_halves.hpp"
#include "gate/read/input_file.hpp"
#include "gate/read/pairing.hpp"
#include "gate/rules/cell_rules.hpp"
#include "gate/rules/fingerprint_rules.hpp"
#include "gate/rules/latency_rules.hpp"
#include "gate/rules/machine_drift.hpp"

namespace memrel {
namespace {

// Two separate runs of one machine (not the halves of one ab run): each run's repetitions are
// moments apart in one process and do not sample the drift between runs, which moves a whole
// run's figures together (measured on the 2-core machine: two back-to-back runs of one build,
// 3 "regressions" at p = 0.0079). The rank test cannot tell that drift from a change.
constexpr const char* kSeparateRunsNotGated =
    "two separate runs: their drift is not in the repetitions; gate it with memrel ab, or "
    "--normalize-drift";
constexpr const char* kSeparateRunsWhy =
    "two separate runs: latency is information only. Each run's repetitions do not sample the "
    "drift between runs, so a rank test over them cannot tell the machine's drift from a change. "
    "Latency gates between the halves of one memrel ab run (rounds interleaved, paired), or "
    "with --normalize-drift, for a shift beyond the drift between these two runs";

// A pair as read: either side absent when only the other folder has the file.
struct ReadPair {
  InputPair names;
  std::optional<InputFile> baseline, current;
};

// A folder's results files each compared with their namesake: a cell in two files of one side
// (a.json and a copy b.json) was judged twice, the copy "missing" from the other side (exit 1,
// d-cmp-dirdup), and two differing answers for one cell would let either pass. Refused, exit 2.
void check_cells_once_per_side(const std::vector<ReadPair>& pairs) {
  for (bool baseline : {true, false}) {
    std::map<std::string, std::string> file_of;  // backend/workload -> the file holding it
    for (const auto& p : pairs) {
      const std::optional<InputFile>& f = baseline ? p.baseline : p.current;
      if (!f || f->kind != InputKind::kResults) continue;
      for (const auto& cell : f->results.cells) {
        const std::string key = cell.backend + "/" + cell.workload;
        auto [it, inserted] = file_of.emplace(key, f->path);
        if (!inserted && it->second != f->path)
          throw ResultsError(f->path + ": cell " + key + " is also in " + it->second +
                             ": a folder holds each cell once");
      }
    }
  }
}

// How memrel_bench measured a file (memrel_measurement: "quick" for bench --quick, "default");
// "" where the file does not say (another program's, an older memrel's, a side of ab whose
// program wrote no benchmark): then nothing is known to differ.
std::string measurement(const nlohmann::json& context) {
  if (!context.is_object()) return "";
  const auto it = context.find("memrel_measurement");
  return it != context.end() && it->is_string() ? it->get<std::string>() : "";
}

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
      // A quick file and a default one run other sizes and another churn under the same
      // benchmark names: their bytes differ with no allocator change, and the pair gave byte
      // regressions, exit 1 (the thirty-seventh adversarial pass,
      // c10-gate-compares-quick-baseline-with-default-night).
      if (b.kind == InputKind::kBenchmark) {
        const std::string bm = measurement(b.benchmarks.context);
        const std::string cm = measurement(c.benchmarks.context);
        if (!bm.empty() && !cm.empty() && bm != cm)
          throw ResultsError(c.path + ": measured as memrel_measurement \"" + cm +
                             "\", the baseline " + b.path + " as \"" + bm +
                             "\": other sizes and another churn under the same names; compare "
                             "files of one measurement (bench --quick on both sides or neither)");
      }
      if (b.gpu && c.gpu && *b.gpu != *c.gpu && !options.allow_different_device) {
        throw ResultsError(c.path + ": GPU \"" + *c.gpu + "\" is not the baseline's \"" + *b.gpu +
                           "\" (" + b.path + "); pass --allow-different-device to compare anyway");
      }
    }
    out.push_back(std::move(r));
  }
  check_cells_once_per_side(out);
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
  std::optional<Row> fingerprint_row, separate_runs_row;
  if (b.kind == InputKind::kBenchmark) {
    // Suite latencies are never gated; benchmark latencies only on one machine, and there only
    // between the halves of one ab run unless --normalize-drift asks for a shift beyond the
    // drift between two separate runs.
    options.interleaved =
        options.interleaved || ab_halves(b.benchmarks.context, c.benchmarks.context);
    if (options.interleaved) options.drift_spread.reset();  // one ab run: nothing drifted apart
    if (options.interleaved && ab_halves(b.benchmarks.context, c.benchmarks.context)) {
      // Halves of an ab run with several looks: the alpha it spent at its last look, at most.
      if (const std::optional<double> look = ab_look_alpha(b.benchmarks.context))
        options.alpha = std::min(options.alpha, *look);
    }
    LatencyStanding standing = latency_standing(b.fingerprint, c.fingerprint, options.interleaved);
    fingerprint_row = standing.row;
    if (!standing.may_gate && options.gate_latency) {
      options.gate_latency = false;
      options.latency_not_gated_because = standing.why_not;
    } else if (!options.interleaved && options.normalize_drift && !options.drift_spread &&
               options.gate_latency) {
      options.gate_latency = false;
      options.latency_not_gated_because =
          "two separate runs: fewer than " + std::to_string(kMinBenchmarksForDriftSpread) +
          " benchmarks timed on both sides, too few to estimate how unevenly the machine drifted";
    } else if (!options.interleaved && !options.normalize_drift && options.gate_latency) {
      options.gate_latency = false;
      options.latency_not_gated_because = kSeparateRunsNotGated;
      std::vector<Row> rows;
      add_row(rows, "file", "latency", "one run", "another run", "", Verdict::kInfo,
              kSeparateRunsWhy);
      separate_runs_row = rows.front();
    }
  }
  FileComparison fc;
  try {
    fc = b.kind == InputKind::kResults
             ? compare_runs(b.results, c.results, options)
             : compare_benchmark_runs(b.benchmarks, c.benchmarks, options);
  } catch (const ResultsError& e) {  // a pair the rules refuse: said with the two files
    throw ResultsError(pair.names.baseline_path + " vs " + pair.names.current_path + ": " +
                       e.what());
  }
  if (separate_runs_row) fc.rows.insert(fc.rows.begin(), *separate_runs_row);
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
                     const CompareOptions& options) {
  return compare_pairs(pair_inputs(baseline, current), baseline, current, options);
}

Report compare_pairs(const std::vector<InputPair>& names, const std::string& baseline,
                     const std::string& current, const CompareOptions& given_options) {
  CompareOptions options = given_options;
  Report report;
  report.baseline_path = baseline;
  report.current_path = current;
  std::vector<ReadPair> pairs = read_pairs(names, options);
  if (options.normalize_drift) {
    std::vector<BenchmarkRunPair> timed;
    for (const auto& p : pairs) {
      if (p.baseline && p.current && p.baseline->kind == InputKind::kBenchmark)
        timed.push_back({&p.baseline->benchmarks, &p.current->benchmarks});
    }
    options.machine_drift = machine_drift(timed);
    report.machine_drift = options.machine_drift;
    options.drift_spread = machine_drift_spread(timed);
    report.drift_spread = options.drift_spread;
  }
  for (const auto& p : pairs) report.files.push_back(compare_read_pair(p, options));
  return report;
}

}  // namespace memrel
