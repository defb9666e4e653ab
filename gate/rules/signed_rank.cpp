#include "gate/rules/signed_rank.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

namespace memrel {

SignedRankResult wilcoxon_signed_rank(const std::vector<double>& differences) {
  std::vector<std::pair<double, bool>> nonzero;  // |d|, positive
  for (double d : differences) {
    if (d != 0) nonzero.emplace_back(std::fabs(d), d > 0);
  }
  SignedRankResult r;
  r.n = nonzero.size();
  if (r.n == 0) return r;
  std::sort(nonzero.begin(), nonzero.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // Twice the (mid)ranks: integers even where magnitudes tie, so the distribution below can be
  // carried over whole numbers.
  std::vector<std::size_t> twice_rank(r.n);
  for (std::size_t start = 0; start < r.n;) {
    std::size_t end = start;
    while (end < r.n && nonzero[end].first == nonzero[start].first) ++end;
    for (std::size_t k = start; k < end; ++k) twice_rank[k] = start + 1 + end;  // 2 * mean rank
    start = end;
  }
  std::size_t twice_plus = 0, twice_total = 0;
  for (std::size_t k = 0; k < r.n; ++k) {
    twice_total += twice_rank[k];
    if (nonzero[k].second) twice_plus += twice_rank[k];
  }
  r.w_plus = static_cast<double>(twice_plus) / 2;
  r.w_minus = static_cast<double>(twice_total - twice_plus) / 2;

  // P(2 W+ = s) with every sign a fair coin, rank by rank: each rank joins W+ or not with
  // probability 1/2. Probabilities rather than counts, so nothing overflows for many rounds.
  std::vector<double> p(twice_total + 1, 0.0);
  p[0] = 1.0;
  std::size_t reach = 0;
  for (std::size_t rank : twice_rank) {
    reach += rank;
    for (std::size_t s = reach + 1; s-- > 0;) {  // downwards: each rank is used once
      const double with = s >= rank ? p[s - rank] : 0.0;
      p[s] = 0.5 * (p[s] + with);
    }
  }
  // Two-sided: the tail beyond the smaller of W+ and W-, doubled (the distribution is symmetric).
  const std::size_t twice_small = std::min(twice_plus, twice_total - twice_plus);
  double tail = 0;
  for (std::size_t s = 0; s <= twice_small; ++s) tail += p[s];
  r.p_value = std::min(1.0, 2.0 * tail);
  return r;
}

double signed_rank_smallest_p(std::size_t n) {
  return n == 0 ? 1.0 : std::min(1.0, 2.0 * std::ldexp(1.0, -static_cast<int>(n)));
}

}  // namespace memrel
