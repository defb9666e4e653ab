// What a comparison is asked to do: `memrel compare`'s options as the gate sees them.
#pragma once

#include <optional>
#include <string>

#include "gate/rules/tolerances.hpp"

namespace memrel {

struct CompareOptions {
  bool allow_different_device = false;
  std::optional<ByteTolerance> byte_tolerance;  // replaces both defaults for every byte figure
  double latency_min_change = kDefaultLatencyMinChange;
  double alpha = kDefaultAlpha;
  // Off: latencies are reported (with the test) as info and only bytes and status gate. For a
  // machine shared while it measures, where whole runs shift by more than any minimum change.
  bool gate_latency = true;
  // Why latency is not gated, for the rows: the option, or the machine fingerprints
  // (gate/rules/fingerprint_rules.hpp), which compare_paths checks for each pair of files.
  std::string latency_not_gated_because = "--no-latency-gate";
  // Both sides come from one `memrel ab` run, interleaved on one machine: latency may gate
  // whatever their fingerprints say.
  bool interleaved = false;
  // On (--normalize-drift): each latency is judged after dividing out the machine's drift, the
  // median current/baseline ratio over every benchmark compared. Between two leases of the same
  // H200 model, unchanged code moved by 2-3x as a whole (every backend, every size, no
  // improvements); one backend regressing alone still stands out against the others. A drift
  // that every backend shares (a driver change) is removed too: the report prints the factor.
  bool normalize_drift = false;
  double machine_drift = 1.0;  // set by compare_paths when normalize_drift is on
  // With --normalize-drift between two separate runs: the spread of the drift over the
  // benchmarks (machine_drift_spread, log scale), set by compare_paths. A benchmark must then
  // stand out from it as well as pass the rank test (latency_rules.cpp); none: not estimable.
  std::optional<double> drift_spread;
};

}  // namespace memrel
