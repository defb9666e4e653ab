#include "gate/rules/mann_whitney.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace memrel {
namespace {

// scipy.stats.mannwhitneyu's own documentation example (males vs females, n = 5 and 4).
const std::vector<double> kMales = {19, 22, 16, 29, 24};
const std::vector<double> kFemales = {20, 11, 17, 12};

TEST(MannWhitney, ScipyExampleExact) {
  MannWhitneyResult r = mann_whitney_u(kMales, kFemales);
  EXPECT_TRUE(r.exact);  // no ties and n <= 8: SciPy's "auto" takes the exact distribution
  EXPECT_DOUBLE_EQ(r.u_x, 17.0);
  EXPECT_DOUBLE_EQ(r.u_y, 3.0);
  EXPECT_NEAR(r.p_value, 0.1111111111111111, 1e-12);  // SciPy: 14 / 126
}

TEST(MannWhitney, ScipyExampleAsymptotic) {
  MannWhitneyResult r = mann_whitney_u(kMales, kFemales, MannWhitneyMethod::kAsymptotic);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);  // SciPy, method="asymptotic"
}

TEST(MannWhitney, CompleteSeparationOfThree) {
  // R: wilcox.test(c(1,2,3), c(4,5,6), exact=FALSE) gives p = 0.08086; exact, 2 / C(6, 3) = 0.1.
  std::vector<double> x = {1, 2, 3}, y = {4, 5, 6};
  MannWhitneyResult exact = mann_whitney_u(x, y);
  EXPECT_TRUE(exact.exact);
  EXPECT_DOUBLE_EQ(exact.u_x, 0.0);
  EXPECT_NEAR(exact.p_value, 0.1, 1e-12);
  MannWhitneyResult normal = mann_whitney_u(x, y, MannWhitneyMethod::kAsymptotic);
  EXPECT_NEAR(normal.p_value, 0.0808556, 1e-6);
}

TEST(MannWhitney, TiesUseMidranksAndTheTieCorrection) {
  // Ranks 1, 3, 3 | 3, 5, 6: U = 1. Variance 9/12 * (7 - 24/30) = 4.65, z = (3.5 - 0.5) /
  // sqrt(4.65).
  MannWhitneyResult r = mann_whitney_u({1, 2, 2}, {2, 3, 4});
  EXPECT_FALSE(r.exact);  // ties: SciPy falls back to the normal approximation
  EXPECT_DOUBLE_EQ(r.u_x, 1.0);
  EXPECT_NEAR(r.p_value, 0.1641597, 1e-6);
}

TEST(MannWhitney, LargerSamplesUseTheNormalApproximation) {
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(1000 + i);
    y.push_back(2000 + i);
  }
  MannWhitneyResult r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  // z = (50 - 0.5) / sqrt(10 * 10 * 21 / 12); p = erfc(z / sqrt 2).
  EXPECT_NEAR(r.p_value, 1.826717911095504e-4, 1e-12);
}

// The exact p is the share of all ways to split the pooled values into two groups of these sizes
// whose U is at least as extreme: count them one by one and compare.
double permutation_p(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> pooled = x;
  pooled.insert(pooled.end(), y.begin(), y.end());
  const std::size_t n = pooled.size(), nx = x.size();
  auto u_of = [&](unsigned mask) {
    double u = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!(mask >> i & 1u)) continue;
      for (std::size_t j = 0; j < n; ++j) {
        if (!(mask >> j & 1u) && pooled[i] > pooled[j]) u += 1;
      }
    }
    return u;
  };
  const double mean = static_cast<double>(nx * (n - nx)) / 2.0;
  const double observed = std::fabs(u_of((1u << nx) - 1) - mean);
  double extreme = 0, total = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != nx) continue;
    total += 1;
    if (std::fabs(u_of(mask) - mean) >= observed - 1e-9) extreme += 1;
  }
  return extreme / total;
}

TEST(MannWhitney, ExactMatchesCountingEverySplit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(0, 1);
  for (auto [nx, ny] : {std::pair{4, 6}, {5, 5}, {3, 9}, {6, 7}}) {
    std::vector<double> x, y;
    for (int i = 0; i < nx; ++i) x.push_back(value(rng));
    for (int i = 0; i < ny; ++i) y.push_back(value(rng) + 0.3);
    MannWhitneyResult r = mann_whitney_u(x, y, MannWhitneyMethod::kExact);
    EXPECT_NEAR(r.p_value, std::min(1.0, permutation_p(x, y)), 1e-12) << nx << " vs " << ny;
  }
}

TEST(MannWhitney, SymmetricInItsArguments) {
  MannWhitneyResult a = mann_whitney_u(kMales, kFemales);
  MannWhitneyResult b = mann_whitney_u(kFemales, kMales);
  EXPECT_DOUBLE_EQ(a.p_value, b.p_value);
  EXPECT_DOUBLE_EQ(a.u_x, b.u_y);
}

TEST(MannWhitney, AllTiedGivesOne) {
  MannWhitneyResult r = mann_whitney_u({5, 5, 5, 5, 5, 5, 5, 5, 5}, {5, 5, 5, 5, 5, 5, 5, 5, 5});
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
}

TEST(MannWhitney, RefusesWhatItCannotTest) {
  EXPECT_THROW(mann_whitney_u({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1, 2}, {2, 3}, MannWhitneyMethod::kExact), std::invalid_argument);
}

}  // namespace
}  // namespace memrel
