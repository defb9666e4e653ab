// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: is one sample of latencies shifted
// against the other?
//
// The gate uses it the way Google Benchmark's tools/gbench/report.py does (it calls
// scipy.stats.mannwhitneyu(x, y, alternative="two-sided")), and this implementation follows
// SciPy's method="auto" so the two tools give the same p-value for the same samples: the exact
// distribution of U for small samples without ties, otherwise the normal approximation with the
// tie correction and the continuity correction. Rank tests suit latencies: they do not assume a
// normal distribution, and one slow outlier (a page fault, a preempted thread) moves a rank by
// one instead of moving a mean by a lot.
#pragma once

#include <cstddef>
#include <vector>

namespace memrel {

// SciPy (1.9 and later) takes the exact distribution when either sample has at most this many
// values and nothing is tied; above it the normal approximation is already close.
constexpr std::size_t kMannWhitneyExactMaxSize = 8;

// kAuto is SciPy's rule above; the other two force a method (tests compare each with SciPy).
enum class MannWhitneyMethod { kAuto, kExact, kAsymptotic };

struct MannWhitneyResult {
  double u_x = 0;      // U of the first sample: pairs (x, y) with x > y, ties counted 1/2
  double u_y = 0;      // n_x * n_y - u_x
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (true) or normal approximation (false)
};

// Throws std::invalid_argument when either sample is empty, or for kExact with tied values (the
// exact distribution assumes none). When every value is the same the samples cannot differ in
// rank: p is 1.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 MannWhitneyMethod method = MannWhitneyMethod::kAuto);

}  // namespace memrel
