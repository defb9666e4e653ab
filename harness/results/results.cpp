#include "harness/results/results.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

#include "harness/results/cell_status.hpp"
#include "platform/input_rules.hpp"
#include "platform/name_characters.hpp"

namespace memrel {
namespace {

// Every field of each type of the model, once: the writer and the checked reader below both
// walk these lists, so a field added here is written and read (with its range checked).
template <class S, class F>
using If = std::enable_if_t<std::is_same_v<std::remove_const_t<S>, F>>;

template <class S, class V>
If<S, Snapshot> visit_fields(S& s, V&& v) {
  v("requested", s.requested);
  v("allocated", s.allocated);
  v("reserved", s.reserved);
  v("device_used", s.device_used);
  v("device_used_delta", s.device_used_delta);
  v("process_used", s.process_used);
  v("host_rss", s.host_rss);
}
template <class S, class V>
If<S, MarkRecord> visit_fields(S& s, V&& v) {
  v("label", s.label);
  v("step", s.step);
  v("at", s.at);
}
template <class S, class V>
If<S, StepRecord> visit_fields(S& s, V&& v) {
  v("op", s.op);
  v("id", s.id);
  v("location", s.location);
  v("bytes", s.bytes);
  v("latency_ns", s.latency_ns);
  v("outcome", s.outcome);
  v("after", s.after);
}
template <class S, class V>
If<S, ReleaseRecord> visit_fields(S& s, V&& v) {
  v("step", s.step);
  v("latency_ns", s.latency_ns);
  v("before", s.before);
  v("after", s.after);
}
template <class S, class V>
If<S, CellSetup> visit_fields(S& s, V&& v) {
  v("memory_space", s.memory_space);
  v("context_create_ns", s.context_create_ns);
  v("device_used_before_context", s.device_used_before_context);
  v("device_used_after_context", s.device_used_after_context);
  v("process_used_after_context", s.process_used_after_context);
  v("backend_init_ns", s.backend_init_ns);
  v("backend_init_device_bytes", s.backend_init_device_bytes);
  v("backend_init_process_bytes", s.backend_init_process_bytes);
  v("baseline_device_used", s.baseline_device_used);
  v("baseline_host_rss", s.baseline_host_rss);
  v("capacity_bytes", s.capacity_bytes);
  v("process_probe_note", s.process_probe_note);
  v("device", s.device);
  v("environment", s.environment);
  v("settings", s.settings);
}
template <class S, class V>
If<S, ReleaseEffect> visit_fields(S& s, V&& v) {
  v("step", s.step);
  v("releasable", s.releasable);
  v("returned", s.returned);
  v("effectiveness", s.effectiveness);
}
template <class S, class V>
If<S, CellMetrics> visit_fields(S& s, V&& v) {
  v("peak_requested", s.peak_requested);
  v("peak_allocated", s.peak_allocated);
  v("peak_reserved", s.peak_reserved);
  v("peak_device_used_delta", s.peak_device_used_delta);
  v("max_overhead_bytes", s.max_overhead_bytes);
  v("overhead_ratio", s.overhead_ratio);
  v("utilization", s.utilization);
  v("releases", s.releases);
  v("release_effectiveness", s.release_effectiveness);
  v("residual_bytes", s.residual_bytes);
  v("median_latency_ns", s.median_latency_ns);
}
template <class S, class V>
If<S, CellResult> visit_fields(S& s, V&& v) {
  v("backend", s.backend);
  v("workload", s.workload);
  v("workload_source", s.workload_source);
  v("status", s.status);
  v("reason", s.reason);
  v("wall_ns", s.wall_ns);
  v("setup", s.setup);
  v("marks", s.marks);
  v("steps", s.steps);
  v("releases", s.releases);
  v("metrics", s.metrics);
  v("trace", s.trace);                          // optional: absent for workload cells
  v("program_allocator", s.program_allocator);  // optional: cells that ran a program
  v("gpu", s.gpu);                              // optional: runs with --gpus only
  v("timing", s.timing);                        // optional: cells that ran
}
template <class S, class V>
If<S, CellTiming> visit_fields(S& s, V&& v) {
  v("started_by", s.started_by);
  v("spawn_ns", s.spawn_ns);
  v("library_load_ns", s.library_load_ns);
  v("context_ns", s.context_ns);
  v("backend_init_ns", s.backend_init_ns);
  v("work_ns", s.work_ns);
  v("probe_ns", s.probe_ns);
  v("previous_exit_wait_ns", s.previous_exit_wait_ns);
  v("exit_ns", s.exit_ns);
  v("exit_overlapped", s.exit_overlapped);
}
template <class S, class V>
If<S, ProgramAllocatorRecord> visit_fields(S& s, V&& v) {
  v("framework", s.framework);
  v("allocator", s.allocator);
  v("cache_layer", s.cache_layer);
}
template <class S, class V>
If<S, CellGpu> visit_fields(S& s, V&& v) {
  v("index", s.index);
  v("uuid", s.uuid);
}
template <class S, class V>
If<S, TraceSeries> visit_fields(S& s, V&& v) {
  v("event", s.event);
  v("requested", s.requested);
  v("allocated", s.allocated);
  v("reserved", s.reserved);
  v("device_used", s.device_used);
  v("device_used_delta", s.device_used_delta);
}
template <class S, class V>
If<S, TraceMarkRecord> visit_fields(S& s, V&& v) {
  v("label", s.label);
  v("event", s.event);
  v("probed", s.probed);
}
template <class S, class V>
If<S, TraceReference> visit_fields(S& s, V&& v) {
  v("event", s.event);
  v("bytes", s.bytes);
}
template <class S, class V>
If<S, TraceReplay> visit_fields(S& s, V&& v) {
  v("file", s.file);
  v("name", s.name);
  v("source_format", s.source_format);
  v("source_file", s.source_file);
  v("device", s.device);
  v("scale", s.scale);
  v("events", s.events);
  v("allocs", s.allocs);
  v("frees", s.frees);
  v("sample_every", s.sample_every);
  v("peak_requested_event", s.peak_requested_event);
  v("ooms", s.ooms);
  v("first_oom_event", s.first_oom_event);
  v("replay_ns", s.replay_ns);
  v("allocator_ns", s.allocator_ns);
  v("ns_per_event", s.ns_per_event);
  v("held_at_end_bytes", s.held_at_end_bytes);
  v("median_latency_ns", s.median_latency_ns);
  v("marks", s.marks);
  v("series", s.series);
  v("recorded_reserved", s.recorded_reserved);
}

// Which fields may be absent: the trace object is newer than memrel.results/1, so its fields
// take defaults (fields added later keep older files readable), and a cell without "trace" is a
// workload cell. Every other field of memrel.cell/1 is required.
template <class T>
bool field_may_be_absent(const T&, const char*) {
  return false;
}
bool field_may_be_absent(const CellResult&, const char* key) {
  return std::strcmp(key, "trace") == 0 || std::strcmp(key, "program_allocator") == 0 ||
         std::strcmp(key, "gpu") == 0 || std::strcmp(key, "timing") == 0;
}
bool field_may_be_absent(const CellTiming&, const char*) { return true; }
bool field_may_be_absent(const ProgramAllocatorRecord&, const char* key) {
  return std::strcmp(key, "framework") == 0 || std::strcmp(key, "allocator") == 0;
}
bool field_may_be_absent(const CellSetup&, const char* key) {
  return std::strcmp(key, "settings") == 0;  // newer than memrel.results/1
}
bool field_may_be_absent(const CellGpu&, const char* key) { return std::strcmp(key, "uuid") == 0; }
bool field_may_be_absent(const TraceSeries&, const char*) { return true; }
bool field_may_be_absent(const TraceMarkRecord&, const char*) { return true; }
bool field_may_be_absent(const TraceReference&, const char*) { return true; }
bool field_may_be_absent(const TraceReplay&, const char*) { return true; }

struct IgnoreField {
  template <class X>
  void operator()(const char*, const X&) const {}
};
// Void for the types of the model (those with visit_fields), no type otherwise.
template <class T>
using IsModel = decltype(visit_fields(std::declval<const T&>(), IgnoreField{}));

// --- writing ---------------------------------------------------------------------------------

template <class T>
nlohmann::json value_json(const T& v);

template <class T>
nlohmann::json value_json(const std::optional<T>& v) {
  return v ? value_json(*v) : nlohmann::json(nullptr);
}
template <class T>
nlohmann::json value_json(const std::vector<T>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& item : v) out.push_back(value_json(item));
  return out;
}
template <class T>
nlohmann::json value_json(const std::map<std::string, T>& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, item] : m) out[key] = value_json(item);
  return out;
}
template <class T>
nlohmann::json value_json(const T& v) {
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    return v;
  } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
    return nlohmann::json(v);
  } else {
    nlohmann::json out = nlohmann::json::object();
    visit_fields(v, [&out](const char* key, const auto& field) {
      // An absent trace is left out, not written as null: readers before it never saw the key.
      // So are the newer optional objects (program_allocator, gpu).
      using Field = std::decay_t<decltype(field)>;
      if constexpr (std::is_same_v<Field, std::optional<TraceReplay>> ||
                    std::is_same_v<Field, std::optional<ProgramAllocatorRecord>> ||
                    std::is_same_v<Field, std::optional<CellGpu>> ||
                    std::is_same_v<Field, std::optional<CellTiming>>) {
        if (!field) return;
      }
      // Likewise a backend's settings when it has none (its library's defaults): files of
      // such cells stay byte for byte what they were before settings.
      if constexpr (std::is_same_v<Field, std::map<std::string, std::string>>) {
        if (std::strcmp(key, "settings") == 0 && field.empty()) return;
      }
      out[key] = value_json(field);
    });
    return out;
  }
}

// --- reading, every number range-checked where it is read --------------------------------------

// "metrics.peak_reserved", "marks[2].at.reserved": the place of a field, as the Python report
// names it (scripts/memrel_report/load.py).
std::string field_place(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

[[noreturn]] void bad(const std::string& place, const std::string& what) {
  throw ResultsError((place.empty() ? "" : place + ": ") + what);
}

// A whole number spelled as a JSON float (`1E2`, `100.0`) within range: said as what it is, not
// "out of range" (arguable in the thirty-third adversarial pass,
// c4-results-whole-number-as-float-says-out-of-range). The readers take integers as written.
void refuse_float_spelling(const nlohmann::json& j, const std::string& place, double low) {
  if (j.is_number_float() && j.get<double>() >= low &&
      j.get<double>() <= static_cast<double>(kMaxExactInteger))
    bad(place, "expected a whole number written as one (no fraction or exponent), got " + j.dump());
}

// Integers: whole JSON numbers from -2^53 (0 for unsigned figures) to 2^53 (docs/results-schema.md,
// "Ranges"): every byte figure, time and count memrel can produce, with room for any sum or
// difference of two of them in 64 bits.
void read_value(const nlohmann::json& j, std::uint64_t& out, const std::string& place) {
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxExactInteger)) {
    out = j.get<std::uint64_t>();
    return;
  }
  if (j.is_number_integer() && !j.is_number_unsigned() && j.get<std::int64_t>() >= 0 &&
      j.get<std::int64_t>() <= kMaxExactInteger) {
    out = static_cast<std::uint64_t>(j.get<std::int64_t>());
    return;
  }
  if (!j.is_number() || (j.is_number_float() && j.get<double>() != std::floor(j.get<double>())))
    bad(place, "expected a whole number, got " + j.dump());
  refuse_float_spelling(j, place, 0);
  bad(place, j.dump() + " is out of range (0 to 2^53)");
}

void read_value(const nlohmann::json& j, std::int64_t& out, const std::string& place) {
  if (j.is_number_integer() && !j.is_number_unsigned() &&
      j.get<std::int64_t>() >= -kMaxExactInteger && j.get<std::int64_t>() <= kMaxExactInteger) {
    out = j.get<std::int64_t>();
    return;
  }
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxExactInteger)) {
    out = static_cast<std::int64_t>(j.get<std::uint64_t>());
    return;
  }
  if (!j.is_number() || (j.is_number_float() && j.get<double>() != std::floor(j.get<double>())))
    bad(place, "expected a whole number, got " + j.dump());
  refuse_float_spelling(j, place, -static_cast<double>(kMaxExactInteger));
  bad(place, j.dump() + " is out of range (-2^53 to 2^53)");
}

void read_value(const nlohmann::json& j, double& out, const std::string& place) {
  if (!j.is_number()) bad(place, "expected a number, got " + j.dump());
  out = j.get<double>();
  if (integer_beyond_exact(j) || !(std::fabs(out) <= static_cast<double>(kMaxExactInteger)))
    bad(place, j.dump() + " is out of range (-2^53 to 2^53)");
}

void read_value(const nlohmann::json& j, bool& out, const std::string& place) {
  if (!j.is_boolean()) bad(place, "expected true or false, got " + j.dump());
  out = j.get<bool>();
}

void read_value(const nlohmann::json& j, std::string& out, const std::string& place) {
  if (!j.is_string()) bad(place, "expected a string, got " + j.dump());
  out = j.get<std::string>();
}

void read_value(const nlohmann::json& j, nlohmann::json& out, const std::string&) { out = j; }

template <class T>
void read_value(const nlohmann::json& j, std::optional<T>& out, const std::string& place);
template <class T>
void read_value(const nlohmann::json& j, std::vector<T>& out, const std::string& place);
template <class T>
void read_value(const nlohmann::json& j, std::map<std::string, T>& out, const std::string& place);
template <class T, class = IsModel<T>>
void read_value(const nlohmann::json& j, T& out, const std::string& place);

template <class T>
void read_value(const nlohmann::json& j, std::optional<T>& out, const std::string& place) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  read_value(j, out.emplace(), place);
}

template <class T>
void read_value(const nlohmann::json& j, std::vector<T>& out, const std::string& place) {
  if (!j.is_array()) bad(place, "expected an array, got " + j.dump());
  out.clear();
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i)
    read_value(j[i], out.emplace_back(), place + "[" + std::to_string(i) + "]");
}

template <class T>
void read_value(const nlohmann::json& j, std::map<std::string, T>& out, const std::string& place) {
  if (!j.is_object()) bad(place, "expected an object, got " + j.dump());
  out.clear();
  for (auto it = j.begin(); it != j.end(); ++it)
    read_value(it.value(), out[it.key()], field_place(place, it.key()));
}

template <class T, class>
void read_value(const nlohmann::json& j, T& out, const std::string& place) {
  if (!j.is_object()) bad(place, "expected an object, got " + j.dump());
  visit_fields(out, [&](const char* key, auto& field) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (field_may_be_absent(out, key)) return;
      bad(place, std::string("missing \"") + key + "\"");
    }
    read_value(*it, field, field_place(place, key));
  });
}

void expect_schema(const nlohmann::json& j, const char* schema) {
  if (!j.is_object()) throw ResultsError("not a JSON object");
  if (!j.contains("schema"))
    throw ResultsError(std::string("missing \"schema\" (expected \"") + schema + "\")");
  if (j["schema"] != schema) {
    // Another kind of memrel file (its schema's name before the version) is said as that kind:
    // a gate verdicts file given as results was "written by another memrel version?" (the
    // thirty-first adversarial pass, c10-other-kind-said-malformed-or-old).
    const std::string given = j["schema"].is_string() ? j["schema"].get<std::string>() : "";
    const std::string expected = schema;
    auto kind = [](const std::string& s) { return s.substr(0, s.find('/')); };
    if (given.rfind("memrel.", 0) == 0 && kind(given) != kind(expected))
      throw ResultsError("schema " + j["schema"].dump() + ": a " + kind(given) + " file, not a " +
                         kind(expected) + " file");
    throw ResultsError("schema " + j["schema"].dump() + " is not \"" + schema +
                       "\" (written by another memrel version?)");
  }
}

void expect_known_status(const CellResult& cell) {
  const auto& known = cell_statuses();
  if (std::find(known.begin(), known.end(), cell.status) != known.end()) return;
  std::string list;
  for (const auto& s : known) list += (list.empty() ? "" : ", ") + s;
  bad("status", nlohmann::json(cell.status).dump() + " is none of " + list);
}

// A cell's memory space is the one its backend allocates in, or empty for a cell that never
// started (memrel writes it so for an unavailable backend): any other word was taken by compare
// and history, and was "internal error: ValueError" in the report (the sixty-first adversarial
// pass, c9-report-unknown-memory-space-internal-error). scripts/memrel_report/load.py's twin.
void expect_known_memory_space(const CellResult& cell) {
  const std::string& space = cell.setup.memory_space;
  if (space == "device" || space == "host" || space.empty()) return;
  bad("setup.memory_space", nlohmann::json(space).dump() +
                                " is neither device nor host (nor empty, for a cell that never "
                                "started)");
}

// A backend's name is a backend file's name (letters, digits, '-', '_', '.') with its settings
// (`:KEY=VALUE,...`, docs/backends.md): never a '/', which splits a cell's subject
// (`backend/workload`), nor a '#' or a space, which the report's "backend #N" labels use. A
// results file holding one was read: `host-malloc/x` on `y` and `host-malloc` on `x/y` were one
// cell to compare and one series to the history, and a backend `host-malloc #2` shared the report
// page of a second run's host-malloc (the tenth adversarial pass, c6-subject-key-ambiguous-slash,
// c6-report-relabel-collides-with-crafted-name).
void expect_backend_name(const CellResult& cell) {
  // Nor empty: no backend is named "", and its report page was "backend-unnamed-..." (the
  // twentieth adversarial pass, c10-results-backend-name-empty-accepted).
  if (cell.backend.empty()) bad("backend", "is empty; every backend has a name");
  if (cell.workload.empty()) bad("workload", "is empty; every workload has a name");
  for (char c : std::string("/# "))
    if (cell.backend.find(c) != std::string::npos)
      bad("backend", nlohmann::json(cell.backend).dump() + " holds '" + std::string(1, c) +
                         "', which no backend's name holds");
  if (std::string c = forbidden_name_character(cell.backend); !c.empty())
    bad("backend",
        "holds " + c + ", a control, invisible, text-direction or noncharacter code point");
  // A workload's name too, as a workload file's is read: compare took ESC and BEL in one where
  // history refused them (the seventeenth adversarial pass, c6-report-results-hand-edited-*).
  if (std::string c = forbidden_name_character(cell.workload); !c.empty())
    bad("workload",
        "holds " + c + ", a control, invisible, text-direction or noncharacter code point");
}

// A ratio and its parts agree as memrel computes it (metrics.cpp), within a double's rounding.
bool is_ratio_of(const std::optional<double>& ratio, double returned, double releasable) {
  if (releasable <= 0) return !ratio.has_value();
  if (!ratio) return false;
  const double exact = returned / releasable;
  return std::fabs(*ratio - exact) <= 1e-9 * std::max(1.0, std::fabs(exact));
}

// Release effectiveness is returned / releasable, each release's and the cell's: a figure that
// is not its parts' ratio is refused, as a byte figure out of range is. A baseline holding
// -1000000 made a real release regression (0.9999 -> 0.1) read as improved, exit 0 (the
// twenty-fourth adversarial pass, c4-baseline-negative-effectiveness-masks-regression); the
// ratio may be negative (the device's use grew during a release) or above 1.
void expect_effectiveness_of_its_parts(const CellResult& cell) {
  const CellMetrics& m = cell.metrics;
  double returned = 0, releasable = 0;
  for (std::size_t i = 0; i < m.releases.size(); ++i) {
    const ReleaseEffect& e = m.releases[i];
    if (!is_ratio_of(e.effectiveness, static_cast<double>(e.returned),
                     static_cast<double>(e.releasable)))
      bad("metrics.releases[" + std::to_string(i) + "].effectiveness",
          (e.effectiveness ? nlohmann::json(*e.effectiveness).dump() : std::string("missing")) +
              " is not returned / releasable (" + std::to_string(e.returned) + " / " +
              std::to_string(e.releasable) + ")");
    if (e.releasable > 0) {
      returned += static_cast<double>(e.returned);
      releasable += static_cast<double>(e.releasable);
    }
  }
  if (!is_ratio_of(m.release_effectiveness, returned, releasable))
    bad("metrics.release_effectiveness",
        (m.release_effectiveness ? nlohmann::json(*m.release_effectiveness).dump()
                                 : std::string("missing")) +
            " is not the releases' returned / releasable bytes");
}

// A trace cell's figures agree with one another as the replay makes them (trace_replay.cpp): a
// scale of "1/0" or "x" counted as "run at another --trace-scale" and took the cell out of the
// gate, exit 0 with 1 GiB more allocated; a recorded reserved at event 99999 of a trace of 616,
// or an ns_per_event of -1766139.5, were drawn (the forty-sixth adversarial pass,
// c4-results-trace-scale-garbage-skips-gate, c4-report-recorded-reserved-event-out-of-trace,
// c4-report-trace-fields-negative). The scale is written as memrel writes it: "1" or "1/N",
// N from 2 to 999999999999999 without leading zeros (another spelling of one scale would not
// pair with it).
bool is_trace_scale_text(const std::string& scale) {
  if (scale == "1") return true;
  return scale.size() > 2 && scale.size() <= 2 + 15 && scale.compare(0, 2, "1/") == 0 &&
         scale[2] != '0' && scale.find_first_not_of("0123456789", 2) == std::string::npos &&
         scale != "1/1";
}

void expect_events_within(const std::vector<std::uint64_t>& events, std::uint64_t last,
                          const std::string& place) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i] > last)
      bad(place + "[" + std::to_string(i) + "]",
          std::to_string(events[i]) + " is past the trace's " + std::to_string(last) + " events");
    if (i > 0 && events[i] < events[i - 1])
      bad(place + "[" + std::to_string(i) + "]",
          std::to_string(events[i]) + " comes before the event ahead of it (" +
              std::to_string(events[i - 1]) + "): events are in order");
  }
}

// `written`: the trace object as the file has it. Its fields are newer than memrel.results/1 and
// take defaults when absent; what is absent is not checked (as the report's reader does).
void expect_trace_consistent(const CellResult& cell, const nlohmann::json& written) {
  if (!cell.trace || !written.is_object()) return;
  const TraceReplay& t = *cell.trace;
  if (written.contains("scale") && !is_trace_scale_text(t.scale))
    bad("trace.scale", nlohmann::json(t.scale).dump() +
                           " is not 1 or 1/N (N a whole number from 2 to 999999999999999)");
  if (t.allocs + t.frees > t.events)
    bad("trace.allocs", std::to_string(t.allocs) + " allocations and " + std::to_string(t.frees) +
                            " frees are more than the trace's " + std::to_string(t.events) +
                            " events");
  if (t.ooms > t.allocs)
    bad("trace.ooms",
        std::to_string(t.ooms) + " failed allocations of " + std::to_string(t.allocs));
  if (t.peak_requested_event > t.events)
    bad("trace.peak_requested_event", std::to_string(t.peak_requested_event) +
                                          " is past the trace's " + std::to_string(t.events) +
                                          " events");
  if (t.first_oom_event && *t.first_oom_event >= t.events)
    bad("trace.first_oom_event", std::to_string(*t.first_oom_event) + " is past the trace's " +
                                     std::to_string(t.events) + " events");
  if ((written.contains("allocator_ns") || written.contains("ns_per_event")) &&
      !is_ratio_of(t.ns_per_event, static_cast<double>(t.allocator_ns),
                   static_cast<double>(t.events)))
    bad("trace.ns_per_event",
        (t.ns_per_event ? nlohmann::json(*t.ns_per_event).dump() : std::string("missing")) +
            " is not allocator_ns / events");
  std::vector<std::uint64_t> mark_events;
  for (const TraceMarkRecord& m : t.marks) mark_events.push_back(m.event);
  expect_events_within(mark_events, t.events, "trace.marks.event");
  expect_events_within(t.series.event, t.events, "trace.series.event");
  if (t.recorded_reserved)
    expect_events_within(t.recorded_reserved->event, t.events, "trace.recorded_reserved.event");
}

// The two peak ratios are their peaks' ratios, as metrics.cpp computes them: an overhead_ratio of
// -1e15 and a utilization of 9e15 were read, and the report ranked that backend best (the
// thirty-third adversarial pass, c4-results-negative-overhead-ratio-ranked-best).
void expect_peak_ratios_of_their_peaks(const CellResult& cell) {
  const CellMetrics& m = cell.metrics;
  const double reserved = m.peak_reserved ? static_cast<double>(*m.peak_reserved) : 0;
  if (!is_ratio_of(m.overhead_ratio, reserved,
                   m.peak_reserved ? static_cast<double>(m.peak_requested) : 0))
    bad("metrics.overhead_ratio",
        (m.overhead_ratio ? nlohmann::json(*m.overhead_ratio).dump() : std::string("missing")) +
            " is not peak_reserved / peak_requested");
  if (!is_ratio_of(m.utilization, m.peak_allocated ? static_cast<double>(*m.peak_allocated) : 0,
                   m.peak_allocated ? reserved : 0))
    bad("metrics.utilization",
        (m.utilization ? nlohmann::json(*m.utilization).dump() : std::string("missing")) +
            " is not peak_allocated / peak_reserved");
}

}  // namespace

nlohmann::json to_json(const CellResult& cell) {
  nlohmann::json j = value_json(cell);
  j["schema"] = kCellSchema;
  return j;
}

CellResult cell_from_json(const nlohmann::json& j) {
  expect_schema(j, kCellSchema);
  CellResult cell;
  try {
    read_value(j, cell, "");
    expect_known_status(cell);
    expect_known_memory_space(cell);
    expect_backend_name(cell);
    expect_effectiveness_of_its_parts(cell);
    expect_peak_ratios_of_their_peaks(cell);
    expect_trace_consistent(cell, j.contains("trace") ? j["trace"] : nlohmann::json());
  } catch (const ResultsError& e) {
    throw ResultsError(std::string("cell record does not match ") + kCellSchema + ": " + e.what());
  }
  return cell;
}

nlohmann::json to_json(const RunResults& run) {
  nlohmann::json j;
  j["schema"] = kResultsSchema;
  j["context"] = run.context;
  j["cells"] = nlohmann::json::array();
  for (const auto& c : run.cells) j["cells"].push_back(to_json(c));
  return j;
}

RunResults run_from_json(const nlohmann::json& j) {
  expect_schema(j, kResultsSchema);
  RunResults run;
  if (!j.contains("context") || !j["context"].is_object())
    throw ResultsError("missing \"context\" object");
  if (!j.contains("cells") || !j["cells"].is_array()) throw ResultsError("missing \"cells\" array");
  run.context = j["context"];
  for (std::size_t i = 0; i < j["cells"].size(); ++i) {
    try {
      run.cells.push_back(cell_from_json(j["cells"][i]));
    } catch (const ResultsError& e) {
      throw ResultsError("cells[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return run;
}

nlohmann::json read_json_file(const std::string& path) {
  try {
    return read_input_json(path, kMaxResultsFileBytes, "results file");
  } catch (const InputError& e) {
    throw ResultsError(e.what());
  }
}

RunResults read_run_file(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  try {
    return run_from_json(j);
  } catch (const ResultsError& e) {
    throw ResultsError(path + ": " + e.what());
  }
}

}  // namespace memrel
