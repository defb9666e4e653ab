#include "gate/rules/alpha_spending.hpp"

#include <algorithm>
#include <cmath>

namespace memrel {

double pocock_spent_alpha(double alpha, double information) {
  const double t = std::clamp(information, 0.0, 1.0);
  return alpha * std::log1p((std::exp(1.0) - 1) * t);
}

std::vector<std::size_t> look_rounds(std::size_t step, std::size_t most) {
  std::vector<std::size_t> looks;
  if (step == 0) return looks;
  for (std::size_t n = step; n < most; n += step) looks.push_back(n);
  looks.push_back(std::max(most, step));
  return looks;
}

std::vector<double> look_alphas(double alpha, std::size_t step, std::size_t most) {
  const std::vector<std::size_t> looks = look_rounds(step, most);
  std::vector<double> alphas;
  double spent = 0;
  for (std::size_t n : looks) {
    const double now =
        pocock_spent_alpha(alpha, static_cast<double>(n) / static_cast<double>(looks.back()));
    alphas.push_back(now - spent);
    spent = now;
  }
  return alphas;
}

}  // namespace memrel
