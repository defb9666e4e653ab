#include "gate/rules/machine_drift.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace memrel {

namespace {

std::vector<double> drift_ratios(const std::vector<BenchmarkRunPair>& pairs) {
  std::vector<double> ratios;
  for (const auto& [baseline, current] : pairs) {
    std::map<std::string, const BenchmarkSeries*> current_series;
    for (const auto& s : current->series) current_series[s.name] = &s;
    for (const auto& s : baseline->series) {
      auto it = current_series.find(s.name);
      if (it == current_series.end()) continue;
      const auto& fb = s.figure_ns;
      const auto& fc = it->second->figure_ns;
      if (!fb || !fc || *fb <= 0 || *fc <= 0) continue;
      // Only a ratio a double holds as it is: times of 5e-324 ns made every ratio 0 (underflow),
      // a drift of x0 and every benchmark an infinite regression, exit 1 (the thirty-first
      // adversarial pass, c4-normalize-drift-denormal-times-false-regression).
      if (const double ratio = *fc / *fb; std::isnormal(ratio)) ratios.push_back(ratio);
    }
  }
  return ratios;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

double machine_drift(const std::vector<BenchmarkRunPair>& pairs) {
  std::vector<double> ratios = drift_ratios(pairs);
  return ratios.empty() ? 1.0 : median(ratios);
}

std::optional<double> machine_drift_spread(const std::vector<BenchmarkRunPair>& pairs) {
  std::vector<double> logs;
  for (double r : drift_ratios(pairs)) logs.push_back(std::log(r));
  if (logs.size() < kMinBenchmarksForDriftSpread) return std::nullopt;
  const double centre = median(logs);
  std::vector<double> deviations;
  for (double l : logs) deviations.push_back(std::fabs(l - centre));
  return 1.4826 * median(deviations);
}

}  // namespace memrel
