#include "gate/read/interleaved_rounds.hpp"

#include <map>

namespace memrel {
namespace {

std::string renamed(const std::string& name, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return name;
  std::size_t first = name.find('/');
  if (first == std::string::npos) return name;
  std::size_t second = name.find('/', first + 1);
  std::size_t length = (second == std::string::npos ? name.size() : second) - first - 1;
  if (name.compare(first + 1, length, from) != 0) return name;
  return name.substr(0, first + 1) + to + name.substr(first + 1 + length);
}

}  // namespace

nlohmann::json merge_rounds(const std::vector<BenchmarkRun>& rounds,
                            const nlohmann::json& ab_context, const std::string& backend_from,
                            const std::string& backend_to) {
  nlohmann::json out = {{"context", rounds.empty() ? nlohmann::json::object() : rounds[0].context},
                        {"benchmarks", nlohmann::json::array()}};
  out["context"]["memrel_ab"] = ab_context.dump();
  // Benchmarks in the order they first appear; each with its entry from every round that has it.
  std::vector<std::string> order;
  std::map<std::string, std::vector<nlohmann::json>> entries;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (const BenchmarkSeries& s : rounds[r].series) {
      const std::string name = renamed(s.name, backend_from, backend_to);
      if (!entries.count(name)) order.push_back(name);
      nlohmann::json e = {{"name", name},
                          {"run_name", name},
                          {"run_type", "iteration"},
                          {"repetitions", rounds.size()},
                          {"repetition_index", r},
                          {"threads", 1},
                          {"iterations", 1},
                          {"time_unit", "ns"}};
      if (!s.skipped.empty()) {
        e["error_occurred"] = true;
        e["error_message"] = s.skipped;
      } else if (s.figure_ns) {
        e["real_time"] = *s.figure_ns;
        e["cpu_time"] = *s.figure_ns;
      } else {
        continue;  // neither a time nor a reason: nothing this round can say
      }
      for (const auto& [counter, value] : s.counters) e[counter] = value;
      entries[name].push_back(std::move(e));
    }
  }
  for (const std::string& name : order) {
    for (auto& e : entries[name]) out["benchmarks"].push_back(std::move(e));
  }
  return out;
}

}  // namespace memrel
