// Per-family latency verdicts for the two halves of one `memrel ab` run (docs/gate.md,
// "Families"). A family is every size of one operation, backend and mode
// ("pair/cuda-malloc/warm"): one change to an allocator moves its sizes the same way, and each
// round measured the reference and the candidate back to back. So each round gives one paired
// figure, the mean over the family's sizes of log(candidate / reference), and the Wilcoxon
// signed-rank test asks whether those are centred on zero. The round is the unit: a family's
// sizes come from the same two processes, so they are averaged into one figure per round rather
// than counted as independent samples.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gate/read/benchmark_json.hpp"

namespace memrel {

// One benchmark of both sides, matched by name, that ran on both.
struct MatchedSeries {
  const BenchmarkSeries* baseline;
  const BenchmarkSeries* current;
};

struct FamilyFinding {
  std::string family;  // "<operation>/<backend>/<mode>"
  std::size_t sizes = 0, rounds = 0;
  // The median over rounds of the family's candidate/reference ratio, minus 1: +0.25 is 25 %
  // slower.
  double change = 0;
  std::optional<double> p_value;  // none when not tested (below)
  std::string untested_because;   // why there is no test: too few rounds, rounds that differ
  // Untested only because its smallest p with these rounds is above alpha: more rounds (ab's
  // further looks) would let it be tested.
  bool needs_more_rounds = false;
};

// "pair/cuda-malloc/warm" of "pair/cuda-malloc/warm/4096/manual_time"; empty for a name with
// fewer than four parts (not a memrel_bench name: no family).
std::string benchmark_family(const std::string& name);

// A finding per family of at least two sizes, in the order the families first appear.
// `alpha`: a family whose rounds can never give p <= alpha is reported untested, with the
// number of rounds it would need.
std::vector<FamilyFinding> paired_family_tests(const std::vector<MatchedSeries>& matched,
                                               double alpha);

}  // namespace memrel
