// The Wilcoxon signed-rank test, two-sided: are paired differences centred on zero?
//
// `memrel ab` measures the reference and the candidate back to back in every round, so a round
// gives a difference in which whatever the machine did during that round cancels. The test asks
// only that, with no change, each round's difference is as likely positive as negative (the sign
// flip is the only thing a change of sides could do to it), which the alternating order of the
// sides makes hold even when going first or second matters (docs/gate.md, "Families").
//
// Written here because no C++ library the project uses has it (Boost.Math has no signed-rank
// distribution); it follows SciPy's scipy.stats.wilcoxon(d, zero_method="wilcox",
// alternative="two-sided", method="exact"): zero differences are dropped, tied magnitudes share
// their mean rank, and the p-value is the exact share of the 2^n equally likely sign patterns
// whose statistic is at least as extreme. The unit tests check it against SciPy's documented
// values and against a count of every sign pattern.
#pragma once

#include <vector>

namespace memrel {

struct SignedRankResult {
  double w_plus = 0;   // sum of the ranks of the positive differences
  double w_minus = 0;  // sum of the ranks of the negative ones
  std::size_t n = 0;   // differences that were not zero
  double p_value = 1;  // two-sided; 1 when every difference is zero
};

SignedRankResult wilcoxon_signed_rank(const std::vector<double>& differences);

// The smallest two-sided p the test can give with n non-zero differences: 2 / 2^n (all of one
// sign). With 5 rounds it is 0.0625, so a paired test over 5 rounds can never reach alpha 0.05.
double signed_rank_smallest_p(std::size_t n);

}  // namespace memrel
