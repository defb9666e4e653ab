// `memrel compare BASELINE CURRENT`: the gate nightly CI runs (docs/gate.md). The comparison
// itself is harness/compare.cpp; this file is its command line.
#include <CLI/CLI.hpp>
#include <iostream>
#include <stdexcept>

#include "harness/compare.hpp"
#include "harness/results.hpp"

namespace memrel {
namespace {

constexpr const char* kCompareExitCodes =
    "Exit codes: 0 no regression; 1 at least one regression, or something in the baseline is "
    "missing from the current run; 2 unusable input (missing, empty, malformed or unknown file, a "
    "file against a folder, different GPUs without --allow-different-device, bad option).";

// CLI11 binds options to variables that must outlive parsing; the subcommand's run step reads
// them afterwards.
struct CompareArgs {
  std::string baseline, current, markdown, byte_tolerance;
  CompareOptions options;
};

CompareArgs& args() {
  static CompareArgs a;
  return a;
}

}  // namespace

void add_compare_subcommand(CLI::App& sub) {
  CompareArgs& a = args();
  sub.footer(kCompareExitCodes);
  sub.add_option("baseline", a.baseline,
                 "Baseline: a results or Google Benchmark JSON file, or a folder of them")
      ->required();
  sub.add_option("current", a.current,
                 "Current run: the same kind (file or folder) as the baseline")
      ->required();
  sub.add_flag("--allow-different-device", a.options.allow_different_device,
               "Compare even when the two runs recorded different GPUs");
  sub.add_option("--markdown", a.markdown, "Also write the table to this file (atomically)");
  sub.add_option(
      "--byte-tolerance", a.byte_tolerance,
      "One tolerance for every byte figure instead of the defaults: a size (0, 4096, 2MiB), "
      "a percentage (1%), or both (2MiB,1%: the larger applies)");
  sub.add_option("--latency-min-change", a.options.latency_min_change,
                 "Smallest relative change of the median latency that can fail the gate")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--alpha", a.options.alpha, "Significance level of the Mann-Whitney U test")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  sub.add_flag("--normalize-drift", a.options.normalize_drift,
               "Judge latencies after dividing out the machine's drift (median ratio over every "
               "benchmark): for baselines taken on another machine of the same model");
  sub.add_flag(
      "--no-latency-gate{false}", a.options.gate_latency,
      "Report benchmark latencies without gating on them (a machine shared while it measures)");
}

int run_compare_subcommand() {
  CompareArgs& a = args();
  if (!a.byte_tolerance.empty()) a.options.byte_tolerance = parse_byte_tolerance(a.byte_tolerance);
  Report report = compare_paths(a.baseline, a.current, a.options);
  std::string markdown = to_markdown(report, a.options);
  std::cout << markdown << std::flush;
  if (!a.markdown.empty()) {
    try {
      write_file_atomically(a.markdown, markdown);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(std::string("--markdown: ") + e.what());
    }
  }
  return report.exit_code();
}

}  // namespace memrel
