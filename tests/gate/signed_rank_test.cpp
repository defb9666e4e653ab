// The Wilcoxon signed-rank test of the paired family verdicts (gate/rules/signed_rank.hpp),
// against SciPy's documented values and against a count of every sign pattern.
#include "gate/rules/signed_rank.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace memrel {
namespace {

// scipy.stats.wilcoxon's documentation example (Cushny and Peebles' differences in height):
// wilcoxon(d) gives statistic 24.0 and pvalue 0.041259765625 (exact, n = 15, no ties).
TEST(SignedRank, ScipyExample) {
  const std::vector<double> d = {6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75};
  SignedRankResult r = wilcoxon_signed_rank(d);
  EXPECT_EQ(r.n, 15u);
  EXPECT_DOUBLE_EQ(r.w_minus, 24.0);
  EXPECT_DOUBLE_EQ(r.w_plus, 96.0);
  EXPECT_DOUBLE_EQ(r.p_value, 0.041259765625);
}

TEST(SignedRank, AllOfOneSignGivesTheSmallestP) {
  for (std::size_t n = 1; n <= 12; ++n) {
    std::vector<double> d;
    for (std::size_t i = 0; i < n; ++i) d.push_back(0.1 + 0.01 * static_cast<double>(i));
    EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(d).p_value, signed_rank_smallest_p(n)) << n;
  }
  EXPECT_DOUBLE_EQ(signed_rank_smallest_p(5), 0.0625);  // 5 rounds can never reach 0.05
  EXPECT_DOUBLE_EQ(signed_rank_smallest_p(6), 0.03125);
  EXPECT_DOUBLE_EQ(signed_rank_smallest_p(10), 2.0 / 1024);
}

TEST(SignedRank, ZerosAreDroppedAndNothingLeftIsNoEvidence) {
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({0, 0, 0}).p_value, 1.0);
  EXPECT_EQ(wilcoxon_signed_rank({0, 1, 2}).n, 2u);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({0, 1, 2}).p_value, 0.5);
}

// Every one of the 2^n sign patterns, counted, with tied magnitudes sharing their mean rank.
double brute_force_p(const std::vector<double>& d) {
  std::vector<double> mags;
  for (double v : d) mags.push_back(std::fabs(v));
  const std::size_t n = d.size();
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n; ++i) {
    double below = 0, equal = 0;
    for (double m : mags) {
      below += m < mags[i];
      equal += m == mags[i];
    }
    rank[i] = below + (equal + 1) / 2;
  }
  double total = 0, observed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += rank[i];
    if (d[i] > 0) observed += rank[i];
  }
  const double centre = total / 2, distance = std::fabs(observed - centre);
  double extreme = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    double w = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (mask & (1u << i)) w += rank[i];
    extreme += std::fabs(w - centre) >= distance - 1e-9;
  }
  return extreme / static_cast<double>(1u << n);
}

TEST(SignedRank, MatchesACountOfEverySignPatternWithAndWithoutTies) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> value(-6, 6);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> d;
    const int n = 3 + trial % 10;
    while (static_cast<int>(d.size()) < n) {
      int v = value(rng);
      if (v != 0) d.push_back(v);  // ties are frequent among 12 magnitudes
    }
    EXPECT_NEAR(wilcoxon_signed_rank(d).p_value, brute_force_p(d), 1e-12) << "trial " << trial;
  }
}

}  // namespace
}  // namespace memrel
