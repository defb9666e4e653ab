// The regression gate behind `memrel compare BASELINE CURRENT` (docs/gate.md), in Google
// Benchmark's three steps: read (gate/read/: each file once, by one reader per format), compute
// (gate/rules/: rows with verdicts), print (gate/print/).
//
// Byte figures are deterministic for a given allocator and workload, so they are compared
// exactly or within a small stated tolerance; latencies are noisy, so they fail only when a rank
// test over repetitions says the shift is real AND it is larger than a minimum change. Anything
// present in the baseline and absent now is listed as missing and fails the gate: a cell that
// stopped running must not pass as "no regression".
#pragma once

#include <string>
#include <vector>

#include "gate/compare_options.hpp"
#include "gate/read/pairing.hpp"
#include "gate/verdict.hpp"

namespace memrel {

// Files or folders (every same-named *.json in both). The kind of each file comes from its
// content. Throws ResultsError ("FILE: what") for unusable input: a missing, empty, malformed or
// unknown file, a file against a folder, files of different kinds, or different GPUs without
// options.allow_different_device.
Report compare_paths(const std::string& baseline, const std::string& current,
                     const CompareOptions& options);

// As compare_paths, for the pairs the caller names (memrel ab: the files it wrote itself, not
// whatever else its folders hold); `baseline` and `current` are the folders, for the report.
Report compare_pairs(const std::vector<InputPair>& pairs, const std::string& baseline,
                     const std::string& current, const CompareOptions& options);

}  // namespace memrel
