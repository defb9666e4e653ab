#include "gate/rules/family_rules.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "gate/rules/signed_rank.hpp"

namespace memrel {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Every round's time positive on both sides, and as many rounds on each: the pairing needs both.
bool pairable(const MatchedSeries& m) {
  const auto& b = m.baseline->real_time_ns;
  const auto& c = m.current->real_time_ns;
  if (b.empty() || b.size() != c.size()) return false;
  for (std::size_t r = 0; r < b.size(); ++r) {
    if (!(b[r] > 0) || !(c[r] > 0)) return false;
  }
  return true;
}

FamilyFinding test_family(const std::string& family, const std::vector<MatchedSeries>& members,
                          double alpha) {
  FamilyFinding f;
  f.family = family;
  f.sizes = members.size();
  for (const auto& m : members) {
    if (!pairable(m)) {
      f.untested_because = m.baseline->name + " has no time for every round on both sides";
      return f;
    }
  }
  f.rounds = members.front().baseline->real_time_ns.size();
  for (const auto& m : members) {
    if (m.baseline->real_time_ns.size() != f.rounds) {
      f.untested_because = "its sizes ran different numbers of rounds";
      return f;
    }
  }
  std::vector<double> per_round(f.rounds, 0.0);  // mean over sizes of log(candidate / reference)
  for (std::size_t r = 0; r < f.rounds; ++r) {
    for (const auto& m : members)
      per_round[r] += std::log(m.current->real_time_ns[r] / m.baseline->real_time_ns[r]);
    per_round[r] /= static_cast<double>(f.sizes);
  }
  f.change = std::exp(median(per_round)) - 1;
  if (signed_rank_smallest_p(f.rounds) > alpha) {
    std::size_t needed = f.rounds;
    while (signed_rank_smallest_p(needed) > alpha) ++needed;
    f.untested_because = "paired test not run: its smallest p with " + std::to_string(f.rounds) +
                         " rounds is above alpha; it needs " + std::to_string(needed) + " rounds";
    f.needs_more_rounds = true;
    return f;
  }
  f.p_value = wilcoxon_signed_rank(per_round).p_value;
  return f;
}

}  // namespace

std::string benchmark_family(const std::string& name) {
  std::size_t cut = 0;
  for (int part = 0; part < 3; ++part) {
    cut = name.find('/', cut);
    if (cut == std::string::npos) return "";
    ++cut;
  }
  return name.substr(0, cut - 1);
}

std::vector<FamilyFinding> paired_family_tests(const std::vector<MatchedSeries>& matched,
                                               double alpha) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<MatchedSeries>> families;
  for (const auto& m : matched) {
    const std::string family = benchmark_family(m.baseline->name);
    if (family.empty() || !m.baseline->skipped.empty() || !m.current->skipped.empty()) continue;
    if (!families.count(family)) order.push_back(family);
    families[family].push_back(m);
  }
  std::vector<FamilyFinding> out;
  for (const auto& family : order) {
    if (families[family].size() < 2) continue;  // one size: its own row says everything
    out.push_back(test_family(family, families[family], alpha));
  }
  return out;
}

}  // namespace memrel
