#include "gate/history/history_figures.hpp"

#include <cmath>

namespace memrel {
namespace {

void add_numbers(std::map<std::string, double>& out, const std::string& prefix,
                 const nlohmann::json& j) {
  for (const auto& [key, value] : j.items()) {
    if (value.is_number() && std::isfinite(value.get<double>())) {
      out[prefix + key] = value.get<double>();
    } else if (value.is_object()) {
      add_numbers(out, prefix + key + ".", value);
    }
  }
}

}  // namespace

std::map<std::string, double> history_figures(const InputFile& file) {
  std::map<std::string, double> out;
  if (file.kind == InputKind::kBenchmark) {
    for (const BenchmarkSeries& s : file.benchmarks.series) {
      if (!s.skipped.empty()) continue;
      if (s.figure_ns) out[s.name + ":real_time_ns"] = *s.figure_ns;
      for (const std::string& counter : benchmark_byte_counters()) {
        auto it = s.counters.find(counter);
        if (it != s.counters.end()) out[s.name + ":" + counter] = it->second;
      }
    }
    return out;
  }
  const nlohmann::json doc = to_json(file.results);
  for (const auto& cell : doc["cells"]) {
    if (cell.value("status", "") != "ok" || !cell.contains("metrics")) continue;
    const std::string subject =
        cell.value("backend", "?") + "/" + cell.value("workload", "?") + ":";
    add_numbers(out, subject, cell["metrics"]);
  }
  return out;
}

std::string history_naming_problem(const InputFile& file) {
  if (file.kind != InputKind::kBenchmark) return "";
  const nlohmann::json& context = file.benchmarks.context;
  if (!context.is_object() || !context.contains("memrel_backend") ||
      !context["memrel_backend"].is_string())
    return "";
  const std::string backend = context["memrel_backend"].get<std::string>();
  for (const BenchmarkSeries& s : file.benchmarks.series) {
    const std::size_t first = s.name.find('/');
    if (first == std::string::npos) continue;
    const std::string rest = s.name.substr(first + 1);
    if (rest == backend || rest.rfind(backend + "/", 0) == 0) continue;
    return "its benchmark " + s.name + " is not named for the backend it measured, " + backend +
           " (context memrel_backend): a `memrel ab --candidate-backend` candidate's file, named "
           "after the reference to be compared with it? The history files figures by name and "
           "would put one backend's in another's series";
  }
  return "";
}

}  // namespace memrel
