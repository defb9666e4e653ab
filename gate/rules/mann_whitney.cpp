#include "gate/rules/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace memrel {
namespace {

// P(U >= u_min) for samples of sizes a and b without ties. The largest of i + j values belongs
// to the first sample with probability i / (i + j), and then it beats all j values of the other:
//   f(i, j; u) = i / (i + j) * f(i - 1, j; u - j) + j / (i + j) * f(i, j - 1; u).
// Carrying probabilities instead of counts keeps every term positive and below 1, so nothing
// overflows or cancels however large C(a + b, a) gets.
double exact_upper_tail(std::size_t a, std::size_t b, std::size_t u_min) {
  std::vector<std::vector<double>> f(a + 1, std::vector<double>(1, 1.0));  // j = 0: U is 0
  for (std::size_t j = 1; j <= b; ++j) {
    std::vector<std::vector<double>> next(a + 1);
    next[0] = {1.0};
    for (std::size_t i = 1; i <= a; ++i) {
      next[i].assign(i * j + 1, 0.0);
      double from_first = static_cast<double>(i) / static_cast<double>(i + j);
      double from_second = 1.0 - from_first;
      for (std::size_t u = 0; u < next[i - 1].size(); ++u)
        next[i][u + j] += from_first * next[i - 1][u];
      for (std::size_t u = 0; u < f[i].size(); ++u) next[i][u] += from_second * f[i][u];
    }
    f = std::move(next);
  }
  double tail = 0;
  for (std::size_t u = u_min; u < f[a].size(); ++u) tail += f[a][u];
  return tail;
}

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 MannWhitneyMethod method) {
  if (x.empty() || y.empty())
    throw std::invalid_argument("Mann-Whitney U needs two non-empty samples");
  const std::size_t nx = x.size(), ny = y.size(), n = nx + ny;

  std::vector<std::pair<double, bool>> all;  // value, from x
  all.reserve(n);
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });

  // Tied values share the mean of the ranks they span; the tie term shrinks the variance of U.
  double rank_sum_x = 0, tie_term = 0;
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start;
    while (end < n && all[end].first == all[start].first) ++end;
    double mean_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (std::size_t k = start; k < end; ++k) {
      if (all[k].second) rank_sum_x += mean_rank;
    }
    double t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    start = end;
  }

  MannWhitneyResult r;
  const double dx = static_cast<double>(nx), dy = static_cast<double>(ny),
               dn = static_cast<double>(n);
  r.u_x = rank_sum_x - dx * (dx + 1) / 2.0;
  r.u_y = dx * dy - r.u_x;
  const double u = std::max(r.u_x, r.u_y);  // two-sided: the tail beyond the larger U, doubled

  if (method == MannWhitneyMethod::kExact && tie_term != 0) {
    throw std::invalid_argument("the exact Mann-Whitney distribution needs samples without ties");
  }
  bool exact =
      method == MannWhitneyMethod::kExact || (method == MannWhitneyMethod::kAuto && tie_term == 0 &&
                                              std::min(nx, ny) <= kMannWhitneyExactMaxSize);
  if (exact) {
    r.exact = true;
    r.p_value = 2.0 * exact_upper_tail(std::min(nx, ny), std::max(nx, ny),
                                       static_cast<std::size_t>(std::llround(u)));
  } else {
    double variance = dx * dy / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    if (variance <= 0) {
      r.p_value = 1.0;  // every value tied: no ordering to test
    } else {
      // The continuity correction: U is discrete, the normal curve is not.
      double z = (u - dx * dy / 2.0 - 0.5) / std::sqrt(variance);
      r.p_value = std::erfc(z / std::sqrt(2.0));  // 2 * (1 - Phi(z))
    }
  }
  r.p_value = std::clamp(r.p_value, 0.0, 1.0);
  return r;
}

}  // namespace memrel
