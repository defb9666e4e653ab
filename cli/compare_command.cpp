// `memrel compare BASELINE CURRENT`: the gate nightly CI runs (docs/gate.md). The comparison
// itself is gate/ (read, rules, print); this file is its command line.
#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/comparison_outputs.hpp"
#include "cli/subcommand.hpp"
#include "cli/threshold_options.hpp"
#include "gate/compare.hpp"
#include "platform/interrupt.hpp"

namespace memrel::cli {
namespace {

constexpr const char* kCompareExitCodes =
    "Exit codes: 0 no regression; 1 at least one regression, or something in the baseline is "
    "missing from the current run; 2 unusable input (missing, empty, malformed or unknown file, a "
    "file against a folder, different GPUs without --allow-different-device, bad option).";

struct CompareArgs {
  std::string baseline, current, markdown, junit, summary, json, byte_tolerance;
  bool only_common = false, only_changes = false;
  CompareOptions options;
};

// Drops the rows `drop` picks from every file of the report, and says on stderr how many went
// and why, so that a shorter table is never mistaken for a smaller comparison.
template <typename Drop>
void leave_out(Report& report, Drop drop, const std::string& why) {
  std::size_t dropped = 0;
  for (FileComparison& f : report.files) {
    const std::size_t before = f.rows.size();
    f.rows.erase(std::remove_if(f.rows.begin(), f.rows.end(), drop), f.rows.end());
    dropped += before - f.rows.size();
  }
  if (dropped > 0) std::cerr << "memrel compare: " << dropped << " rows left out: " << why << "\n";
}

int run_compare(const CompareArgs& a, const GlobalOptions& global) {
  // A stop asked for before the outputs are written writes none of them; once the first is
  // written the rest follow (a few files, quickly): a SIGTERM at the end of a large compare ended
  // it without a word, three of its four outputs replaced (the twenty-fourth adversarial pass,
  // c9-sigterm-compare-outputs-partly-written).
  InterruptRequests requests;
  CompareOptions options = a.options;
  if (!a.byte_tolerance.empty()) options.byte_tolerance = parse_byte_tolerance(a.byte_tolerance);
  check_comparison_outputs({a.markdown, a.junit, a.summary, a.json}, {a.baseline, a.current},
                           global);
  Report report = compare_paths(a.baseline, a.current, options);
  if (a.only_common) {
    // A quick run against a full baseline: what only one side has is not a regression here.
    leave_out(
        report,
        [](const Row& r) { return r.verdict == Verdict::kMissing || r.verdict == Verdict::kNew; },
        "--only-common (in one run only)");
  }
  if (a.only_changes) {
    leave_out(
        report, [](const Row& r) { return r.verdict == Verdict::kOk; },
        "--only-changes (unchanged within tolerance)");
  }
  if (int signal = InterruptRequests::received(); signal != 0)
    throw Interrupted(signal, "interrupted by " + signal_name(signal) + "; nothing written");
  return print_and_write(report, options, {a.markdown, a.junit, a.summary, a.json});
}

}  // namespace

RunSubcommand attach_compare(CLI::App& sub, const GlobalOptions& global) {
  auto args = std::make_shared<CompareArgs>();
  CompareArgs& a = *args;
  sub.footer(kCompareExitCodes);
  sub.add_option("baseline", a.baseline,
                 "Baseline: a results or Google Benchmark JSON file, or a folder of them")
      ->required();
  sub.add_option("current", a.current,
                 "Current run: the same kind (file or folder) as the baseline")
      ->required();
  sub.add_flag("--only-common", a.only_common,
               "Compare only what both runs have: a quick or partial run against a full "
               "baseline (cells and figures of one run only are left out, not failures)");
  sub.add_flag("--only-changes", a.only_changes,
               "Show only rows that changed (regressions, improvements, missing, new, info): "
               "unchanged rows are left out of the table, the summary and the files");
  sub.add_flag("--allow-different-device", a.options.allow_different_device,
               "Compare even when the two runs recorded different GPUs");
  sub.add_option("--markdown", a.markdown, "Also write the table to this file (atomically)");
  sub.add_option("--junit", a.junit,
                 "Also write JUnit XML: a testcase per cell status and per gated figure, "
                 "failures for regressions and missing figures");
  sub.add_option("--summary", a.summary,
                 "Also write a one-screen Markdown summary (for a CI step summary)");
  sub.add_option("--json", a.json,
                 "Also write the verdicts as data: every row and the summary "
                 "(memrel.gate-verdicts/1, docs/schemas/gate-verdicts.schema.json)");
  sub.add_option(
      "--byte-tolerance", a.byte_tolerance,
      "One tolerance for every byte figure instead of the defaults: a size (0, 4096, 2MiB), "
      "a percentage (1%), or both (2MiB,1%: the larger applies)");
  sub.add_option("--latency-min-change", a.options.latency_min_change,
                 "Smallest relative change of the median latency that can fail the gate")
      ->capture_default_str()
      ->check(latency_min_change_range());
  sub.add_option("--alpha", a.options.alpha, "Significance level of the Mann-Whitney U test")
      ->capture_default_str()
      ->check(alpha_range());
  sub.add_flag("--normalize-drift", a.options.normalize_drift,
               "Between two separate runs of one machine, gate latency that stands out from their "
               "drift: the median ratio over every benchmark divided out, and a shift beyond the "
               "spread of the benchmarks' ratios (without it, separate runs' latency is info)");
  sub.add_flag(
      "--no-latency-gate{false}", a.options.gate_latency,
      "Report benchmark latencies without gating on them (a machine shared while it measures)");
  return [args, &global] { return run_compare(*args, global); };
}

}  // namespace memrel::cli
