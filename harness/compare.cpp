#include "harness/compare.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "allocators/registry.hpp"
#include "harness/cli_support.hpp"
#include "harness/mann_whitney.hpp"

namespace fs = std::filesystem;

namespace memrel {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kInfo:
      return "info";
    case Verdict::kMissing:
      return "missing";
    case Verdict::kNew:
      return "new";
    case Verdict::kSkipped:
      return "skipped";
  }
  return "?";
}

const std::vector<std::string>& benchmark_byte_counters() {
  static const std::vector<std::string> names = {"max_bytes_used", "reserved", "peak_reserved",
                                                 "reserved_before", "overhead"};
  return names;
}

ByteTolerance parse_byte_tolerance(const std::string& text) {
  const std::string option = "--byte-tolerance";
  ByteTolerance t;
  bool have_size = false, have_percent = false;
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    std::size_t comma = text.find(',', start);
    parts.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& part : parts) {
    bool percent = !part.empty() && part.back() == '%';
    if (part.empty() || (percent ? have_percent : have_size)) {
      throw std::invalid_argument(
          option + ": '" + text +
          "' is not one size and/or one percentage (e.g. 0, 2MiB, 1%, 2MiB,1%)");
    }
    (percent ? have_percent : have_size) = true;
    if (percent) {
      std::string number = part.substr(0, part.size() - 1);
      std::size_t used = 0;
      double pct = -1;
      try {
        pct = std::stod(number, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (number.empty() || used != number.size() || !(pct >= 0) || pct >= 100) {
        throw std::invalid_argument(option + ": '" + part + "' is not a percentage from 0% to 99%");
      }
      t.relative = pct / 100.0;
    } else if (part == "0") {
      t.absolute = 0;
    } else {
      t.absolute = parse_byte_size(part, option);
    }
  }
  return t;
}

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string printf_string(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// Bytes exact, as every byte figure in memrel is; MiB beside it for a reader.
std::string format_bytes(std::int64_t v) {
  std::string s = std::to_string(v);
  if (std::llabs(v) >= (1ll << 20))
    s += " (" + printf_string("%.1f MiB", static_cast<double>(v) / kMiB) + ")";
  return s;
}

std::string format_tolerance(double bytes) {
  if (bytes == 0) return "exact";
  if (bytes >= kMiB) return printf_string("%.1f MiB", bytes / kMiB);
  return printf_string("%.0f B", bytes);
}

std::string relative_change(double diff, double base) {
  if (base == 0) return "";
  return printf_string("%+.1f%%", 100.0 * diff / std::fabs(base));
}

std::string format_byte_change(std::int64_t diff, std::int64_t base) {
  if (diff == 0) return "0";
  std::string s = (diff > 0 ? "+" : "") + std::to_string(diff);
  std::vector<std::string> notes;
  if (std::llabs(diff) >= (1ll << 20))
    notes.push_back(printf_string("%+.1f MiB", static_cast<double>(diff) / kMiB));
  std::string pct = relative_change(static_cast<double>(diff), static_cast<double>(base));
  if (!pct.empty()) notes.push_back(pct);
  if (!notes.empty()) {
    s += " (";
    for (std::size_t i = 0; i < notes.size(); ++i) s += (i ? ", " : "") + notes[i];
    s += ")";
  }
  return s;
}

std::string format_ns(double ns) {
  if (ns < 1e4) return printf_string("%.0f ns", ns);
  if (ns < 1e7) return printf_string("%.1f µs", ns / 1e3);
  if (ns < 1e10) return printf_string("%.2f ms", ns / 1e6);
  return printf_string("%.2f s", ns / 1e9);
}

std::string format_p(double p) {
  if (p < 1e-4) return printf_string("p=%.1e", p);
  return printf_string("p=%.4f", p);
}

// The middle of a sample of doubles (the mean of the two middles for an even count, as Google
// Benchmark's median aggregate does).
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

template <typename T>
std::optional<std::int64_t> signed_bytes(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

enum class ByteSource { kAllocator, kObserved };

struct Rules {
  const CompareOptions& options;
  bool host = false;  // host cells: mallinfo and RSS, both process-wide, so both are observed

  ByteTolerance tolerance(ByteSource source) const {
    if (options.byte_tolerance) return *options.byte_tolerance;
    return (source == ByteSource::kObserved || host) ? kObservedBytesTolerance
                                                     : kAllocatorBytesTolerance;
  }
};

void add_row(std::vector<Row>& rows, const std::string& subject, const std::string& metric,
             std::string baseline, std::string current, std::string change, Verdict verdict) {
  rows.push_back(
      {subject, metric, std::move(baseline), std::move(current), std::move(change), verdict});
}

// Growth beyond the tolerance fails; a fall beyond it is reported as an improvement. A figure
// that disappears is missing (the gate could no longer guard it); one that appears is new.
void compare_bytes(std::vector<Row>& rows, const std::string& subject, const std::string& metric,
                   std::optional<std::int64_t> base, std::optional<std::int64_t> cur,
                   const ByteTolerance& tolerance) {
  if (!base && !cur) return;
  if (!cur) {
    add_row(rows, subject, metric, format_bytes(*base), "not reported", "", Verdict::kMissing);
    return;
  }
  if (!base) {
    add_row(rows, subject, metric, "not reported", format_bytes(*cur), "", Verdict::kNew);
    return;
  }
  std::int64_t diff = *cur - *base;
  double allowed = std::max(static_cast<double>(tolerance.absolute),
                            tolerance.relative * std::fabs(static_cast<double>(*base)));
  Verdict v = Verdict::kOk;
  if (static_cast<double>(diff) > allowed)
    v = Verdict::kRegression;
  else if (static_cast<double>(-diff) > allowed)
    v = Verdict::kImproved;
  std::string change = format_byte_change(diff, *base);
  if (diff != 0 && v == Verdict::kOk) change += ", within " + format_tolerance(allowed);
  add_row(rows, subject, metric, format_bytes(*base), format_bytes(*cur), change, v);
}

std::string format_ratio(const std::optional<double>& r) {
  return r ? printf_string("%.4f", *r) : "undefined";
}

void compare_effectiveness(std::vector<Row>& rows, const std::string& subject,
                           const std::optional<double>& base, const std::optional<double>& cur) {
  const std::string metric = "release_effectiveness";
  if (!base && !cur) return;  // nothing was releasable in either run: nothing to guard
  if (base && !cur) {
    // Undefined means nothing was releasable at any release step: the workload or the backend
    // changed so that the gate can no longer see how well release works.
    add_row(rows, subject, metric, format_ratio(base), "undefined",
            "now undefined (nothing releasable)", Verdict::kRegression);
    return;
  }
  if (!base) {
    add_row(rows, subject, metric, "undefined", format_ratio(cur), "now defined", Verdict::kInfo);
    return;
  }
  double diff = *cur - *base;
  Verdict v = Verdict::kOk;
  if (diff < -kEffectivenessTolerance)
    v = Verdict::kRegression;
  else if (diff > kEffectivenessTolerance)
    v = Verdict::kImproved;
  std::string change = diff == 0 ? "0" : printf_string("%+.4f", diff);
  if (diff != 0 && v == Verdict::kOk)
    change += printf_string(", within %.2f", kEffectivenessTolerance);
  add_row(rows, subject, metric, format_ratio(base), format_ratio(cur), change, v);
}

// Marks are matched by label; a label used twice is told apart by its occurrence ("x#2").
std::vector<std::pair<std::string, const MarkRecord*>> keyed_marks(const CellResult& cell) {
  std::map<std::string, int> seen;
  std::vector<std::pair<std::string, const MarkRecord*>> out;
  for (const auto& m : cell.marks) {
    int n = ++seen[m.label];
    out.emplace_back(n == 1 ? m.label : m.label + "#" + std::to_string(n), &m);
  }
  return out;
}

// Calls `both(key, b, c)` in baseline order, then `only_base` / `only_cur` for the rest, so a
// table lists every item of either side exactly once.
template <typename T>
void match_by_key(const std::vector<std::pair<std::string, T>>& base,
                  const std::vector<std::pair<std::string, T>>& cur,
                  const std::function<void(const std::string&, const T&, const T&)>& both,
                  const std::function<void(const std::string&, const T&)>& only_base,
                  const std::function<void(const std::string&, const T&)>& only_cur) {
  std::map<std::string, const T*> cur_index;
  for (const auto& [k, v] : cur) cur_index.emplace(k, &v);
  std::set<std::string> base_keys;
  for (const auto& [k, v] : base) {
    base_keys.insert(k);
    auto it = cur_index.find(k);
    if (it == cur_index.end())
      only_base(k, v);
    else
      both(k, v, *it->second);
  }
  for (const auto& [k, v] : cur) {
    if (!base_keys.count(k)) only_cur(k, v);
  }
}

void compare_marks(std::vector<Row>& rows, const std::string& subject, const CellResult& b,
                   const CellResult& c, const Rules& rules) {
  using Mark = const MarkRecord*;
  match_by_key<Mark>(
      keyed_marks(b), keyed_marks(c),
      [&](const std::string& label, const Mark& mb, const Mark& mc) {
        std::string prefix = "mark " + label + ": ";
        compare_bytes(rows, subject, prefix + "allocated", signed_bytes(mb->at.allocated),
                      signed_bytes(mc->at.allocated), rules.tolerance(ByteSource::kAllocator));
        compare_bytes(rows, subject, prefix + "reserved", signed_bytes(mb->at.reserved),
                      signed_bytes(mc->at.reserved), rules.tolerance(ByteSource::kAllocator));
        compare_bytes(rows, subject, prefix + "device_used_delta", mb->at.device_used_delta,
                      mc->at.device_used_delta, rules.tolerance(ByteSource::kObserved));
      },
      [&](const std::string& label, const Mark&) {
        add_row(rows, subject, "mark " + label, "present", "absent", "", Verdict::kMissing);
      },
      [&](const std::string& label, const Mark&) {
        add_row(rows, subject, "mark " + label, "absent", "present", "", Verdict::kNew);
      });
}

// Single-run medians of a few steps each: shown so a reader sees the trend, never gated (the
// benchmarks, with repetitions and a test, gate latency).
void report_suite_latencies(std::vector<Row>& rows, const std::string& subject,
                            const CellMetrics& b, const CellMetrics& c) {
  std::set<std::string> ops;
  for (const auto& [op, ns] : b.median_latency_ns) ops.insert(op);
  for (const auto& [op, ns] : c.median_latency_ns) ops.insert(op);
  for (const auto& op : ops) {
    auto ib = b.median_latency_ns.find(op), ic = c.median_latency_ns.find(op);
    std::string metric = "median latency " + op + " (one run, not gated)";
    std::string bs =
        ib == b.median_latency_ns.end() ? "absent" : format_ns(static_cast<double>(ib->second));
    std::string cs =
        ic == c.median_latency_ns.end() ? "absent" : format_ns(static_cast<double>(ic->second));
    std::string change;
    if (ib != b.median_latency_ns.end() && ic != c.median_latency_ns.end()) {
      change = relative_change(static_cast<double>(ic->second) - static_cast<double>(ib->second),
                               static_cast<double>(ib->second));
    }
    add_row(rows, subject, metric, bs, cs, change, Verdict::kInfo);
  }
}

std::string status_text(const CellResult& c) {
  return c.reason.empty() ? c.status : c.status + ": " + c.reason;
}

void compare_cell(std::vector<Row>& rows, const CellResult& b, const CellResult& c,
                  const CompareOptions& options) {
  const std::string subject = b.backend + "/" + b.workload;
  if (b.status != "ok" || c.status != "ok") {
    Verdict v;
    std::string change;
    if (b.status == c.status) {
      // Unavailable on both (no GPU here): nothing ran to compare. Failing the same way as the
      // baseline is not new, but is shown.
      v = b.status == "unavailable" ? Verdict::kSkipped : Verdict::kInfo;
      change = "unchanged; metrics not compared";
    } else if (c.status == "ok") {
      v = Verdict::kImproved;
      change = "runs now; metrics not compared (baseline has none)";
    } else {
      v = Verdict::kRegression;
      change = "metrics not compared";
    }
    add_row(rows, subject, "status", status_text(b), status_text(c), change, v);
    return;
  }
  add_row(rows, subject, "status", "ok", "ok", "", Verdict::kOk);

  Rules rules{options, b.setup.memory_space == "host" || c.setup.memory_space == "host"};
  const CellMetrics& mb = b.metrics;
  const CellMetrics& mc = c.metrics;
  compare_bytes(rows, subject, "peak_allocated", signed_bytes(mb.peak_allocated),
                signed_bytes(mc.peak_allocated), rules.tolerance(ByteSource::kAllocator));
  compare_bytes(rows, subject, "peak_reserved", signed_bytes(mb.peak_reserved),
                signed_bytes(mc.peak_reserved), rules.tolerance(ByteSource::kAllocator));
  compare_bytes(rows, subject, "max_overhead_bytes", mb.max_overhead_bytes, mc.max_overhead_bytes,
                rules.tolerance(ByteSource::kAllocator));
  compare_bytes(rows, subject, "peak_device_used_delta", mb.peak_device_used_delta,
                mc.peak_device_used_delta, rules.tolerance(ByteSource::kObserved));
  compare_bytes(rows, subject, "residual_bytes", mb.residual_bytes, mc.residual_bytes,
                rules.tolerance(ByteSource::kObserved));
  compare_effectiveness(rows, subject, mb.release_effectiveness, mc.release_effectiveness);
  compare_marks(rows, subject, b, c, rules);
  report_suite_latencies(rows, subject, mb, mc);
}

void add_device_row(std::vector<Row>& rows, const std::optional<std::string>& b,
                    const std::optional<std::string>& c) {
  if (b == c) return;
  // Only reached when the difference is allowed or one side records no GPU at all.
  add_row(rows, "file", "GPU", b.value_or("none recorded"), c.value_or("none recorded"),
          "different device: figures may differ for that reason", Verdict::kInfo);
}

// Whether a benchmark's byte counters are device bookkeeping (exact) or process-wide host
// figures: memrel_bench records its backend's memory space in the context; for other files the
// backend comes from the name, "<operation>/<backend>/...", and its space from the registry.
bool host_backend_benchmark(const nlohmann::json& context, const std::string& name) {
  if (context.is_object() && context.contains("memrel_memory_space") &&
      context["memrel_memory_space"].is_string()) {
    return context["memrel_memory_space"] == "host";
  }
  std::size_t first = name.find('/');
  if (first == std::string::npos) return false;
  std::size_t second = name.find('/', first + 1);
  std::string backend =
      name.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  for (const auto& b : all_backends()) {
    if (b.name == backend) return b.space == MemorySpace::kHost;
  }
  return false;  // torch plugins and unknown names: device backends, compared exactly
}

std::optional<double> series_figure(const BenchmarkSeries& s) {
  if (!s.real_time_ns.empty()) return median_of(s.real_time_ns);
  return s.aggregate_ns;
}

std::string describe_figure(const BenchmarkSeries& s) {
  std::optional<double> f = series_figure(s);
  if (!f) return "no figure";
  if (!s.real_time_ns.empty()) {
    return format_ns(*f) + (s.real_time_ns.size() == 1
                                ? " (1 run)"
                                : " (median of " + std::to_string(s.real_time_ns.size()) + ")");
  }
  return format_ns(*f) + " (aggregate)";
}

// A latency regression needs both a significant rank test and a median shift beyond the
// minimum change: significance alone flags shifts too small to matter, and the shift alone
// flags noise.
void compare_latency(std::vector<Row>& rows, const BenchmarkSeries& b, const BenchmarkSeries& c,
                     const CompareOptions& options) {
  const std::string metric = "real_time";
  std::optional<double> fb = series_figure(b), fc = series_figure(c);
  if (!fb || !fc) {
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), "no time to compare",
            Verdict::kInfo);
    return;
  }
  const double drift = options.machine_drift;
  double change = *fb == 0 ? 0 : *fc / (*fb * drift) - 1;
  std::string change_text = relative_change(*fc - *fb, *fb);
  if (drift != 1.0 && !change_text.empty()) {
    change_text += printf_string(" (%+.1f%%", 100 * change) +
                   printf_string(" after machine drift x%.3g)", drift);
  }
  if (b.real_time_ns.size() < kMinRepetitions || c.real_time_ns.size() < kMinRepetitions) {
    std::string why = (b.real_time_ns.empty() || c.real_time_ns.empty())
                          ? "no repetitions in the file (aggregates only?): not tested"
                          : "too few repetitions (" + std::to_string(b.real_time_ns.size()) +
                                " and " + std::to_string(c.real_time_ns.size()) +
                                "; the test needs " + std::to_string(kMinRepetitions) +
                                " a side): not tested";
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c),
            (change_text.empty() ? "" : change_text + "; ") + why, Verdict::kInfo);
    return;
  }
  std::vector<double> expected = b.real_time_ns;  // the baseline as this machine would run it
  for (double& t : expected) t *= drift;
  MannWhitneyResult test = mann_whitney_u(expected, c.real_time_ns);
  bool significant = test.p_value < options.alpha;
  bool large = std::fabs(change) > options.latency_min_change;
  std::string text = change_text + ", " + format_p(test.p_value);
  if (!options.gate_latency) {
    add_row(rows, b.name, metric, describe_figure(b), describe_figure(c),
            text + "; not gated (--no-latency-gate)", Verdict::kInfo);
    return;
  }
  Verdict v = Verdict::kOk;
  if (significant && large) v = change > 0 ? Verdict::kRegression : Verdict::kImproved;
  if (v == Verdict::kOk && large)
    text += printf_string(" (not significant at alpha %.3g)", options.alpha);
  if (v == Verdict::kOk && significant && !large) {
    text += printf_string(" (significant, within the %.0f%% minimum change)",
                          100 * options.latency_min_change);
  }
  add_row(rows, b.name, metric, describe_figure(b), describe_figure(c), text, v);
}

// A byte counter is the same in every repetition (within a page for host backends), so the value
// most repetitions agree on is the figure; without any repeated value, the median.
double typical_counter(const std::vector<double>& values) {
  std::map<double, std::size_t> count;
  for (double v : values) ++count[v];
  auto most = std::max_element(count.begin(), count.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return most->second > 1 ? most->first : median_of(values);
}

std::optional<std::int64_t> counter_figure(const BenchmarkSeries& s, const std::string& name) {
  auto it = s.counters.find(name);
  if (it != s.counters.end() && !it->second.empty()) {
    // Google Benchmark 1.7.1 keeps each repetition's MemoryManager result behind a pointer into a
    // vector that later repetitions reallocate, so every repetition but the last may report freed
    // memory as max_bytes_used, several of them the same stale value (seen: 4 of 5 on a quick
    // host run; tests/data/compare/gbench-1.7.1-host.json has one). The last one's storage is
    // never moved, so it is the one to trust, on every version.
    if (name == "max_bytes_used") return std::llround(it->second.back());
    return std::llround(typical_counter(it->second));
  }
  auto ia = s.aggregate_counters.find(name);
  if (ia != s.aggregate_counters.end()) return std::llround(ia->second);
  return std::nullopt;
}

void compare_series(std::vector<Row>& rows, const BenchmarkSeries& b, const BenchmarkSeries& c,
                    bool host, const CompareOptions& options) {
  if (!b.skipped.empty() || !c.skipped.empty()) {
    std::string bs = b.skipped.empty() ? "ran" : "skipped: " + b.skipped;
    std::string cs = c.skipped.empty() ? "ran" : "skipped: " + c.skipped;
    Verdict v = !c.skipped.empty() ? (b.skipped.empty() ? Verdict::kRegression : Verdict::kSkipped)
                                   : Verdict::kImproved;
    add_row(rows, b.name, "status", bs, cs, "not compared", v);
    return;
  }
  compare_latency(rows, b, c, options);
  Rules rules{options, host};
  ByteTolerance tolerance = rules.tolerance(ByteSource::kAllocator);
  if (host && !options.byte_tolerance) tolerance = kHostBenchmarkBytesTolerance;
  for (const auto& counter : benchmark_byte_counters()) {
    compare_bytes(rows, b.name, counter, counter_figure(b, counter), counter_figure(c, counter),
                  tolerance);
  }
}

double time_unit_ns(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw ResultsError("unknown time_unit \"" + unit + "\"");
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

enum class FileKind { kResults, kBenchmark };

struct LoadedFile {
  FileKind kind;
  RunResults results;
  BenchmarkRun benchmarks;
  std::optional<std::string> gpu;
};

const char* kind_name(FileKind k) {
  return k == FileKind::kResults ? "a memrel results file" : "a Google Benchmark file";
}

// By content, not by name: a memrel document says its schema; Google Benchmark's has a
// "benchmarks" array and no schema.
LoadedFile load_file(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  LoadedFile f;
  if (j.is_object() && j.contains("schema")) {
    f.kind = FileKind::kResults;
    try {
      f.results = run_from_json(j);  // what read_run_file does, without reading the file twice
    } catch (const ResultsError& e) {
      throw ResultsError(path + ": " + e.what());
    }
    f.gpu = recorded_gpu(f.results.context, false);
  } else if (j.is_object() && j.contains("benchmarks")) {
    f.kind = FileKind::kBenchmark;
    try {
      f.benchmarks = benchmark_run_from_json(j);
    } catch (const ResultsError& e) {
      throw ResultsError(path + ": " + e.what());
    }
    f.gpu = recorded_gpu(f.benchmarks.context, true);
  } else {
    throw ResultsError(path + ": neither a memrel results file (\"schema\": \"" + kResultsSchema +
                       "\") nor Google Benchmark JSON (\"context\" and \"benchmarks\")");
  }
  return f;
}

FileComparison compare_files(const std::string& title, const std::string& base_path,
                             const std::string& cur_path, const CompareOptions& options) {
  LoadedFile b = load_file(base_path);
  LoadedFile c = load_file(cur_path);
  if (b.kind != c.kind) {
    throw ResultsError(cur_path + ": " + kind_name(c.kind) + ", but the baseline " + base_path +
                       " is " + kind_name(b.kind));
  }
  if (b.gpu && c.gpu && *b.gpu != *c.gpu && !options.allow_different_device) {
    throw ResultsError(cur_path + ": GPU \"" + *c.gpu + "\" is not the baseline's \"" + *b.gpu +
                       "\" (" + base_path + "); pass --allow-different-device to compare anyway");
  }
  FileComparison fc = b.kind == FileKind::kResults
                          ? compare_runs(b.results, c.results, options)
                          : compare_benchmark_runs(b.benchmarks, c.benchmarks, options);
  fc.title = title;
  fc.baseline_path = base_path;
  fc.current_path = cur_path;
  return fc;
}

std::vector<std::string> json_files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      names.push_back(entry.path().filename().string());
    }
  }
  if (ec) throw ResultsError(dir + ": cannot read folder (" + ec.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

}  // namespace

std::optional<std::string> recorded_gpu(const nlohmann::json& context, bool benchmark_file) {
  const char* key = benchmark_file ? "memrel_gpu" : "gpu";
  if (context.is_object() && context.contains(key) && context[key].is_string() &&
      !context[key].get<std::string>().empty()) {
    return context[key].get<std::string>();
  }
  return std::nullopt;
}

BenchmarkRun benchmark_run_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ResultsError("not a JSON object");
  if (!j.contains("context") || !j["context"].is_object())
    throw ResultsError("missing \"context\" object");
  if (!j.contains("benchmarks") || !j["benchmarks"].is_array())
    throw ResultsError("missing \"benchmarks\" array");
  BenchmarkRun run;
  run.context = j["context"];
  std::map<std::string, std::size_t> index;
  std::map<std::string, bool> from_median;  // the aggregate figure is the median, not the mean
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
    auto [it, inserted] = index.emplace(key, run.series.size());
    if (inserted) run.series.push_back(BenchmarkSeries{key, {}, {}, {}, {}, {}});
    BenchmarkSeries& s = run.series[it->second];

    for (const char* flag : {"error_occurred", "skipped"}) {
      if (e.contains(flag) && e[flag].is_boolean() && e[flag].get<bool>()) {
        std::string message = "no reason given";
        for (const char* field : {"error_message", "skip_message"}) {
          if (e.contains(field) && e[field].is_string()) message = e[field].get<std::string>();
        }
        s.skipped = message;
      }
    }
    if (!s.skipped.empty()) continue;

    std::string aggregate_name =
        aggregate && e.contains("aggregate_name") && e["aggregate_name"].is_string()
            ? e["aggregate_name"].get<std::string>()
            : "";
    // stddev, cv and complexity fits are not times of the benchmark.
    if (aggregate && aggregate_name != "median" && aggregate_name != "mean") continue;
    if (!e.contains("real_time") || !e["real_time"].is_number()) {
      throw ResultsError(where + " (" + name + "): no numeric \"real_time\"");
    }
    std::string unit = e.contains("time_unit") && e["time_unit"].is_string()
                           ? e["time_unit"].get<std::string>()
                           : "ns";
    double ns;
    try {
      ns = e["real_time"].get<double>() * time_unit_ns(unit);
    } catch (const ResultsError& err) {
      throw ResultsError(where + " (" + name + "): " + err.what());
    }
    if (aggregate) {
      bool median = aggregate_name == "median";
      if (median || !from_median[key]) {
        s.aggregate_ns = ns;
        from_median[key] = median;
        for (const auto& counter : benchmark_byte_counters()) {
          if (e.contains(counter) && e[counter].is_number())
            s.aggregate_counters[counter] = e[counter].get<double>();
        }
      }
      continue;
    }
    s.real_time_ns.push_back(ns);
    for (const auto& counter : benchmark_byte_counters()) {
      if (e.contains(counter) && e[counter].is_number())
        s.counters[counter].push_back(e[counter].get<double>());
    }
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

FileComparison compare_runs(const RunResults& baseline, const RunResults& current,
                            const CompareOptions& options) {
  FileComparison out;
  add_device_row(out.rows, recorded_gpu(baseline.context, false),
                 recorded_gpu(current.context, false));
  using Cell = const CellResult*;
  auto keyed = [](const RunResults& run) {
    std::vector<std::pair<std::string, Cell>> cells;
    for (const auto& c : run.cells) cells.emplace_back(c.backend + "/" + c.workload, &c);
    return cells;
  };
  match_by_key<Cell>(
      keyed(baseline), keyed(current),
      [&](const std::string&, const Cell& b, const Cell& c) {
        compare_cell(out.rows, *b, *c, options);
      },
      [&](const std::string& key, const Cell& b) {
        add_row(out.rows, key, "cell", status_text(*b), "absent", "stopped running",
                Verdict::kMissing);
      },
      [&](const std::string& key, const Cell& c) {
        add_row(out.rows, key, "cell", "absent", status_text(*c), "", Verdict::kNew);
      });
  return out;
}

FileComparison compare_benchmark_runs(const BenchmarkRun& baseline, const BenchmarkRun& current,
                                      const CompareOptions& options) {
  FileComparison out;
  add_device_row(out.rows, recorded_gpu(baseline.context, true),
                 recorded_gpu(current.context, true));
  using Series = const BenchmarkSeries*;
  auto keyed = [](const BenchmarkRun& run) {
    std::vector<std::pair<std::string, Series>> series;
    for (const auto& s : run.series) series.emplace_back(s.name, &s);
    return series;
  };
  match_by_key<Series>(
      keyed(baseline), keyed(current),
      [&](const std::string&, const Series& b, const Series& c) {
        bool host = host_backend_benchmark(baseline.context, b->name) ||
                    host_backend_benchmark(current.context, c->name);
        compare_series(out.rows, *b, *c, host, options);
      },
      [&](const std::string& key, const Series& b) {
        add_row(out.rows, key, "benchmark", describe_figure(*b), "absent", "stopped running",
                Verdict::kMissing);
      },
      [&](const std::string& key, const Series& c) {
        add_row(out.rows, key, "benchmark", "absent", describe_figure(*c), "", Verdict::kNew);
      });
  return out;
}

namespace {

// The (baseline, current) file pairs compare_paths will compare: one pair, or same-named files.
std::vector<std::pair<std::string, std::string>> paired_files(const std::string& baseline,
                                                              const std::string& current) {
  if (!fs::is_directory(baseline) || !fs::is_directory(current)) return {{baseline, current}};
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> cur_files = json_files_in(current);
  for (const auto& name : json_files_in(baseline)) {
    if (std::binary_search(cur_files.begin(), cur_files.end(), name)) {
      pairs.emplace_back((fs::path(baseline) / name).string(), (fs::path(current) / name).string());
    }
  }
  return pairs;
}

// The median current/baseline ratio of every benchmark both sides timed: what the machine
// itself changed between the runs. 1 when nothing can be paired.
double machine_drift(const std::string& baseline, const std::string& current) {
  std::vector<double> ratios;
  for (const auto& [bp, cp] : paired_files(baseline, current)) {
    LoadedFile b = load_file(bp), c = load_file(cp);
    if (b.kind != FileKind::kBenchmark || c.kind != FileKind::kBenchmark) continue;
    std::map<std::string, const BenchmarkSeries*> current_series;
    for (const auto& s : c.benchmarks.series) current_series[s.name] = &s;
    for (const auto& s : b.benchmarks.series) {
      auto it = current_series.find(s.name);
      if (it == current_series.end()) continue;
      std::optional<double> fb = series_figure(s), fc = series_figure(*it->second);
      if (fb && fc && *fb > 0 && *fc > 0) ratios.push_back(*fc / *fb);
    }
  }
  return ratios.empty() ? 1.0 : median_of(ratios);
}

}  // namespace

Report compare_paths(const std::string& baseline, const std::string& current,
                     const CompareOptions& given_options) {
  Report report;
  CompareOptions options = given_options;
  report.baseline_path = baseline;
  report.current_path = current;
  for (const auto& p : {baseline, current}) {
    std::error_code ec;
    if (!fs::exists(p, ec)) throw ResultsError(p + ": cannot open (no such file or folder)");
  }
  bool base_dir = fs::is_directory(baseline), cur_dir = fs::is_directory(current);
  if (base_dir != cur_dir) {
    throw ResultsError((cur_dir ? current : baseline) + ": a folder, but " +
                       (cur_dir ? baseline : current) +
                       " is a file: compare a folder with a folder or a file with a file");
  }
  if (options.normalize_drift) {
    options.machine_drift = machine_drift(baseline, current);
    report.machine_drift = options.machine_drift;
  }
  if (!base_dir) {
    std::string bn = fs::path(baseline).filename().string(),
                cn = fs::path(current).filename().string();
    report.files.push_back(
        compare_files(bn == cn ? bn : bn + " vs " + cn, baseline, current, options));
    return report;
  }
  std::vector<std::string> base_files = json_files_in(baseline), cur_files = json_files_in(current);
  if (base_files.empty()) throw ResultsError(baseline + ": no *.json files to compare with");
  std::set<std::string> names(base_files.begin(), base_files.end());
  names.insert(cur_files.begin(), cur_files.end());
  for (const auto& name : names) {
    std::string bp = (fs::path(baseline) / name).string(), cp = (fs::path(current) / name).string();
    bool in_base = std::binary_search(base_files.begin(), base_files.end(), name);
    bool in_cur = std::binary_search(cur_files.begin(), cur_files.end(), name);
    if (in_base && in_cur) {
      report.files.push_back(compare_files(name, bp, cp, options));
      continue;
    }
    FileComparison fc;
    fc.title = name;
    fc.baseline_path = in_base ? bp : "";
    fc.current_path = in_cur ? cp : "";
    if (in_base)
      add_row(fc.rows, name, "file", "present", "absent", "not produced by this run",
              Verdict::kMissing);
    else
      add_row(fc.rows, name, "file", "absent", "present", "not in the baseline", Verdict::kNew);
    report.files.push_back(fc);
  }
  return report;
}

Summary Report::summary() const {
  Summary s;
  for (const auto& f : files) {
    for (const auto& r : f.rows) {
      switch (r.verdict) {
        case Verdict::kOk:
          ++s.compared;
          break;
        case Verdict::kImproved:
          ++s.compared;
          ++s.improved;
          break;
        case Verdict::kRegression:
          ++s.compared;
          ++s.regressions;
          break;
        case Verdict::kInfo:
          ++s.compared;
          ++s.info;
          break;
        case Verdict::kMissing:
          ++s.missing;
          break;
        case Verdict::kNew:
          ++s.added;
          break;
        case Verdict::kSkipped:
          ++s.skipped;
          break;
      }
    }
  }
  return s;
}

int Report::exit_code() const {
  Summary s = summary();
  return (s.regressions > 0 || s.missing > 0) ? 1 : 0;
}

std::string to_markdown(const Report& report, const CompareOptions& options) {
  std::ostringstream out;
  Summary s = report.summary();
  out << "## memrel compare\n\n";
  out << "Baseline `" << report.baseline_path << "`, current `" << report.current_path << "`.\n";
  if (options.byte_tolerance) {
    out << "Bytes: tolerance "
        << format_tolerance(static_cast<double>(options.byte_tolerance->absolute))
        << printf_string(" or %.1f%%", 100 * options.byte_tolerance->relative)
        << " (whichever is larger) for every figure. ";
  } else {
    out << "Bytes: allocator-reported figures of device backends exact; driver-observed figures "
           "and host "
           "backends within 2 MiB or 1% (whichever is larger). ";
  }
  out << printf_string("Latency: Mann-Whitney U, two-sided, alpha %.3g", options.alpha)
      << printf_string(", minimum median change %.0f%%", 100 * options.latency_min_change)
      << ", at least " << kMinRepetitions << " repetitions a side"
      << (options.gate_latency ? "" : "; latency NOT gated (--no-latency-gate)");
  if (report.machine_drift) {
    out << printf_string("; machine drift x%.3f divided out", *report.machine_drift)
        << " (--normalize-drift: the median current/baseline ratio over every benchmark)";
  }
  out << ". See docs/gate.md.\n";
  for (const auto& f : report.files) {
    out << "\n### " << escape_cell(f.title) << "\n\n";
    out << "| metric | baseline | current | change | verdict |\n";
    out << "|---|---|---|---|---|\n";
    for (const auto& r : f.rows) {
      std::string verdict = verdict_name(r.verdict);
      if (r.verdict == Verdict::kRegression || r.verdict == Verdict::kMissing)
        verdict = "**" + verdict + "**";
      out << "| " << escape_cell(r.subject + " · " + r.metric) << " | " << escape_cell(r.baseline)
          << " | " << escape_cell(r.current) << " | " << escape_cell(r.change) << " | " << verdict
          << " |\n";
    }
  }
  out << "\nSummary: " << s.compared << " compared, " << s.regressions << " regressions, "
      << s.missing << " missing, " << s.added << " new (" << s.improved << " improved, " << s.info
      << " info, " << s.skipped << " skipped): " << (report.exit_code() ? "FAIL" : "PASS") << ".\n";
  return out.str();
}

}  // namespace memrel
