#include "gate/rules/machine_drift.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace memrel {

double machine_drift(const std::vector<BenchmarkRunPair>& pairs) {
  std::vector<double> ratios;
  for (const auto& [baseline, current] : pairs) {
    std::map<std::string, const BenchmarkSeries*> current_series;
    for (const auto& s : current->series) current_series[s.name] = &s;
    for (const auto& s : baseline->series) {
      auto it = current_series.find(s.name);
      if (it == current_series.end()) continue;
      const auto& fb = s.figure_ns;
      const auto& fc = it->second->figure_ns;
      if (fb && fc && *fb > 0 && *fc > 0) ratios.push_back(*fc / *fb);
    }
  }
  if (ratios.empty()) return 1.0;
  std::sort(ratios.begin(), ratios.end());
  std::size_t n = ratios.size();
  return n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0;
}

}  // namespace memrel
