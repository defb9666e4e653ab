#include "gate/read/benchmark_json.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/results/results.hpp"
#include "platform/input_rules.hpp"

namespace memrel {

const std::vector<std::string>& benchmark_byte_counters() {
  static const std::vector<std::string> names = {"max_bytes_used", "reserved", "peak_reserved",
                                                 "reserved_before", "overhead"};
  return names;
}

namespace {

std::string format_double(double v) { return nlohmann::json(v).dump(); }

// Keys Google Benchmark writes itself; every other numeric key of an entry is a user counter.
bool is_benchmark_field(const std::string& key) {
  static const std::set<std::string> fields = {"name",
                                               "run_name",
                                               "run_type",
                                               "repetitions",
                                               "repetition_index",
                                               "threads",
                                               "aggregate_name",
                                               "aggregate_unit",
                                               "iterations",
                                               "real_time",
                                               "cpu_time",
                                               "time_unit",
                                               "error_occurred",
                                               "error_message",
                                               "skipped",
                                               "skip_message",
                                               "label",
                                               "family_index",
                                               "per_family_instance_index",
                                               "big_o",
                                               "cpu_coefficient",
                                               "real_coefficient",
                                               "rms",
                                               "allocs_per_iter"};
  return fields.count(key) > 0;
}

bool is_byte_counter(const std::string& key) {
  const auto& names = benchmark_byte_counters();
  return std::find(names.begin(), names.end(), key) != names.end();
}

constexpr double kMaxFigure = static_cast<double>(kMaxExactInteger);

void check_byte_counter(const std::string& key, double v) {
  double lowest = key == "overhead" ? -kMaxFigure : 0;
  if (!(v >= lowest && v <= kMaxFigure)) {
    throw ResultsError("counter \"" + key + "\" = " + format_double(v) +
                       " is impossible (byte counters are " + (key == "overhead" ? "-2^53" : "0") +
                       " to 2^53)");
  }
}

double time_unit_ns(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw ResultsError("unknown time_unit \"" + unit + "\"");
}

// "iterations", where given, is how many times the benchmark ran in the repetition: a whole
// number from 1 (the sixth pass: -5 and 1.5 were read as a figure's own).
void check_iterations(const nlohmann::json& e) {
  if (!e.contains("iterations")) return;
  const nlohmann::json& n = e["iterations"];
  const bool whole = n.is_number_unsigned() && n.get<std::uint64_t>() >= 1 &&
                     n.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxExactInteger);
  if (!whole)
    throw ResultsError("iterations " + n.dump() + " is impossible (a whole number from 1 to 2^53)");
}

// The mean of the two middle values for an even count, as Google Benchmark's median aggregate.
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// A byte counter is the same in every repetition (within a page for host backends), so the
// value most repetitions agree on is the figure (the smallest of tied values); without any
// repeated value, the median.
double typical_value(const std::vector<double>& values) {
  std::map<double, std::size_t> count;
  for (double v : values) ++count[v];
  auto most = std::max_element(count.begin(), count.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return most->second > 1 ? most->first : median_of(values);
}

// Google Benchmark before 1.5 wrote no run_name: the aggregate's name is the run's plus
// "_<aggregate>".
std::string run_name_of(const nlohmann::json& e, const std::string& name, bool aggregate) {
  if (e.contains("run_name") && e["run_name"].is_string()) return e["run_name"].get<std::string>();
  if (aggregate && e.contains("aggregate_name") && e["aggregate_name"].is_string()) {
    std::string suffix = "_" + e["aggregate_name"].get<std::string>();
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

// Google Benchmark 1.7 writes error_occurred: true with error_message for SkipWithError; 1.8
// writes error_occurred: false with error_message for SkipWithMessage. Either did not run.
// The rule is docs/benchmark-json.md's (and scripts/memrel_report/gbench.py's, rule 2): a
// `skip_message` alone is a message, not a skip, and an empty `error_message` is a skip without a
// reason. Read otherwise here, a lone skip_message failed a series that ran, and an empty
// error_message was a series that ran on its other repetitions (the thirty-seventh adversarial
// pass, c4-skip-message-alone-gate-says-regression, c4-empty-error-message-switches-skip-rule-off).
std::optional<std::string> skip_reason(const nlohmann::json& e) {
  bool skipped = e.contains("error_message") && e["error_message"].is_string();
  for (const char* flag : {"error_occurred", "skipped"}) {
    if (e.contains(flag) && e[flag].is_boolean() && e[flag].get<bool>()) skipped = true;
  }
  if (!skipped) return std::nullopt;
  for (const char* field : {"error_message", "skip_message"}) {
    if (e.contains(field) && e[field].is_string() && !e[field].get<std::string>().empty())
      return e[field].get<std::string>();
  }
  return std::string("no reason given");
}

// Every counter of an entry. Byte counters are range-checked here, where they are read: 0 to
// 2^53 bytes (overhead, reserved less live, from -2^53), so that no difference the gate takes
// can overflow. max_bytes_used is checked on the entry it is taken from (the last repetition):
// the others may hold Google Benchmark 1.7.1's stale values (docs/benchmark-json.md).
std::map<std::string, double> counters_of(const nlohmann::json& e) {
  std::map<std::string, double> out;
  for (const auto& [key, value] : e.items()) {
    if (!value.is_number() || is_benchmark_field(key)) continue;
    double v = value.get<double>();
    if (is_byte_counter(key) && key != "max_bytes_used" && integer_beyond_exact(value))
      throw ResultsError("counter \"" + key + "\" = " + value.dump() +
                         " is impossible (byte counters are within 2^53)");
    if (is_byte_counter(key) && key != "max_bytes_used") check_byte_counter(key, v);
    out[key] = v;
  }
  return out;
}

// What one series gathers while its entries are read; finish() applies the rule.
struct Gathered {
  BenchmarkSeries series;
  // What says an entry is a second copy of one already read (check_not_duplicate).
  std::set<std::int64_t> repetition_indexes;
  std::size_t iteration_entries = 0;
  std::set<std::string> aggregate_names;
  std::map<std::string, std::vector<double>> repetition_counters;
  std::optional<double> median_ns, mean_ns;
  std::map<std::string, double> median_counters, mean_counters;

  void finish() {
    BenchmarkSeries& s = series;
    if (!s.skipped.empty()) {
      s.real_time_ns.clear();
      return;
    }
    const std::map<std::string, double>* aggregate_counters = nullptr;
    if (!s.real_time_ns.empty()) {
      s.figure_ns = median_of(s.real_time_ns);
      s.source = "median of " + std::to_string(s.real_time_ns.size());
      for (const auto& [name, values] : repetition_counters) {
        if (name == "max_bytes_used") {
          try {
            check_byte_counter(name, values.back());
          } catch (const ResultsError& e) {
            throw ResultsError(s.name + " (its last repetition): " + e.what());
          }
          // Google Benchmark 1.7.1 keeps each repetition's MemoryManager result behind a pointer
          // into a vector that later repetitions reallocate, so every repetition but the last
          // may report freed memory (tests/data/compare/gbench-1.7.1-host.json has one). The
          // last one's storage is never moved: it is the one to trust, on every version.
          s.counters[name] = std::round(values.back());
        } else if (is_byte_counter(name)) {
          s.counters[name] = std::round(typical_value(values));
        } else {
          s.counters[name] = median_of(values);
        }
      }
    } else if (median_ns) {
      s.figure_ns = median_ns;
      s.source = "median aggregate";
      aggregate_counters = &median_counters;
    } else if (mean_ns) {
      s.figure_ns = mean_ns;
      s.source = "mean aggregate";
      aggregate_counters = &mean_counters;
    }
    if (aggregate_counters != nullptr) {
      for (const auto& [name, value] : *aggregate_counters) {
        if (name == "max_bytes_used") {
          try {
            check_byte_counter(name, value);
          } catch (const ResultsError& e) {
            throw ResultsError(s.name + " (" + s.source + "): " + e.what());
          }
        }
        s.counters[name] = is_byte_counter(name) ? std::round(value) : value;
      }
    }
  }
};

// A benchmark in a file twice (two runs appended, an entry copied) has two answers, and the gate
// cannot tell which to judge: a repetition index seen before in its series, more iteration
// entries than the series' "repetitions", or a second aggregate of one name is refused. Files
// without repetition_index (Google Benchmark before 1.5) cannot be told apart and are read.
void check_not_duplicate(Gathered& g, const nlohmann::json& e, bool aggregate,
                         const std::string& where) {
  // Google Benchmark writes both as whole numbers, 1 <= repetitions and 0 <= index <
  // repetitions: any other value or spelling switched this check off (repetitions -3 read a
  // series twice as "median of 6", an index 0.0 likewise: the thirty-first adversarial pass,
  // c4-bench-*-disables-duplicate-check).
  constexpr std::int64_t kMaxRepetitions = 2147483647;  // its int
  if (e.contains("repetitions") &&
      !(e["repetitions"].is_number_integer() && e["repetitions"].get<std::int64_t>() >= 1 &&
        e["repetitions"].get<std::int64_t>() <= kMaxRepetitions))
    throw ResultsError(where + ": \"repetitions\" " + e["repetitions"].dump() +
                       " is not a whole number from 1 to 2^31-1");
  if (e.contains("repetition_index") &&
      !(e["repetition_index"].is_number_integer() &&
        e["repetition_index"].get<std::int64_t>() >= 0 &&
        e["repetition_index"].get<std::int64_t>() <
            (e.contains("repetitions") ? e["repetitions"].get<std::int64_t>() : kMaxRepetitions)))
    throw ResultsError(where + ": \"repetition_index\" " + e["repetition_index"].dump() +
                       " is not a whole number from 0 to its \"repetitions\" less 1");
  if (aggregate) {
    if (e.contains("aggregate_name") && e["aggregate_name"].is_string() &&
        !g.aggregate_names.insert(e["aggregate_name"].get<std::string>()).second)
      throw ResultsError(where + ": a second \"" + e["aggregate_name"].get<std::string>() +
                         "\" aggregate of this benchmark: in the file twice?");
    return;
  }
  ++g.iteration_entries;
  if (e.contains("repetition_index") && e["repetition_index"].is_number_integer() &&
      !g.repetition_indexes.insert(e["repetition_index"].get<std::int64_t>()).second)
    throw ResultsError(where + ": repetition_index " + e["repetition_index"].dump() +
                       " a second time: the benchmark is in the file twice?");
  if (e.contains("repetitions") && e["repetitions"].is_number_unsigned() &&
      g.iteration_entries > e["repetitions"].get<std::uint64_t>())
    throw ResultsError(where + ": more iteration entries than its \"repetitions\" (" +
                       e["repetitions"].dump() + "): the benchmark is in the file twice?");
}

}  // namespace

BenchmarkRun benchmark_run_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ResultsError("not a JSON object");
  if (!j.contains("context") || !j["context"].is_object())
    throw ResultsError("missing \"context\" object");
  if (!j.contains("benchmarks") || !j["benchmarks"].is_array())
    throw ResultsError("missing \"benchmarks\" array");
  std::vector<Gathered> gathered;
  std::map<std::string, std::size_t> index;
  const auto& entries = j["benchmarks"];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    std::string where = "benchmarks[" + std::to_string(i) + "]";
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) {
      throw ResultsError(where + ": no \"name\"");
    }
    std::string name = e["name"].get<std::string>();
    std::string run_type = e.contains("run_type") && e["run_type"].is_string()
                               ? e["run_type"].get<std::string>()
                               : "iteration";
    bool aggregate = run_type == "aggregate";
    std::string key = run_name_of(e, name, aggregate);
    auto [it, inserted] = index.emplace(key, gathered.size());
    if (inserted) {
      gathered.emplace_back();
      gathered.back().series.name = key;
    }
    Gathered& g = gathered[it->second];
    check_not_duplicate(g, e, aggregate, where + " (" + name + ")");

    if (std::optional<std::string> why = skip_reason(e)) {
      if (g.series.skipped.empty()) g.series.skipped = *why;  // the first reason given
      continue;
    }
    std::string aggregate_name =
        aggregate && e.contains("aggregate_name") && e["aggregate_name"].is_string()
            ? e["aggregate_name"].get<std::string>()
            : "";
    // stddev, cv, complexity fits and custom statistics are not times of the benchmark.
    if (aggregate && aggregate_name != "median" && aggregate_name != "mean") continue;
    if (!e.contains("real_time") || !e["real_time"].is_number()) {
      throw ResultsError(where + " (" + name + "): no numeric \"real_time\"");
    }
    // Absent is ns; present, it is one of the four strings: `null`, 1000 or true were read as
    // ns here and refused by the report (the thirty-seventh adversarial pass,
    // c4-compare-accepts-time-unit-not-a-string).
    if (e.contains("time_unit") && !e["time_unit"].is_string())
      throw ResultsError(where + " (" + name + "): time_unit " + e["time_unit"].dump() +
                         " is not one of \"ns\", \"us\", \"ms\", \"s\"");
    std::string unit = e.contains("time_unit") ? e["time_unit"].get<std::string>() : "ns";
    double ns;
    std::map<std::string, double> counters;
    try {
      ns = e["real_time"].get<double>() * time_unit_ns(unit);
      // A negative time would read as an improvement, and no benchmark runs for 104 days.
      if (integer_beyond_exact(e["real_time"]) || !(ns >= 0 && ns <= kMaxFigure))
        throw ResultsError("real_time " + e["real_time"].dump() + " " + unit +
                           " is impossible (0 to 2^53 ns)");
      check_iterations(e);
      counters = counters_of(e);
    } catch (const ResultsError& err) {
      throw ResultsError(where + " (" + name + "): " + err.what());
    }
    if (aggregate) {
      // The first median (mean) aggregate of a series counts; Google Benchmark writes one.
      bool median = aggregate_name == "median";
      std::optional<double>& figure = median ? g.median_ns : g.mean_ns;
      if (!figure) {
        figure = ns;
        (median ? g.median_counters : g.mean_counters) = counters;
      }
      continue;
    }
    g.series.real_time_ns.push_back(ns);
    for (const auto& [counter, value] : counters) g.repetition_counters[counter].push_back(value);
  }
  BenchmarkRun run;
  run.context = j["context"];
  for (auto& g : gathered) {
    try {
      g.finish();
    } catch (const ResultsError& err) {
      throw ResultsError("benchmarks: " + std::string(err.what()));
    }
    run.series.push_back(std::move(g.series));
  }
  return run;
}

BenchmarkRun read_benchmark_file(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  try {
    return benchmark_run_from_json(j);
  } catch (const ResultsError& e) {
    throw ResultsError(path + ": " + e.what());
  }
}

}  // namespace memrel
