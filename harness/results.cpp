#include "harness/results.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v)
      j = *v;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null())
      v.reset();
    else
      v = j.get<T>();
  }
};
}  // namespace nlohmann

namespace memrel {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Snapshot, requested, allocated, reserved, device_used,
                                   device_used_delta, process_used, host_rss)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MarkRecord, label, step, at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StepRecord, op, id, location, bytes, latency_ns, outcome, after)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReleaseRecord, step, latency_ns, before, after)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CellSetup, memory_space, context_create_ns,
                                   device_used_before_context, device_used_after_context,
                                   process_used_after_context, backend_init_ns,
                                   backend_init_device_bytes, backend_init_process_bytes,
                                   baseline_device_used, baseline_host_rss, capacity_bytes,
                                   process_probe_note, device, environment)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReleaseEffect, step, releasable, returned, effectiveness)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CellMetrics, peak_requested, peak_allocated, peak_reserved,
                                   peak_device_used_delta, max_overhead_bytes, overhead_ratio,
                                   utilization, releases, release_effectiveness, residual_bytes,
                                   median_latency_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CellResult, backend, workload, workload_source, status, reason,
                                   wall_ns, setup, marks, steps, releases, metrics)
// The trace object is newer than memrel.results/1: its fields take defaults when absent, so
// that fields added later keep older files readable.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProgramAllocatorRecord, torch_allocator,
                                                cache_layer)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CellGpu, index, uuid)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TraceSeries, event, requested, allocated, reserved,
                                                device_used, device_used_delta)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TraceMarkRecord, label, event, probed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TraceReference, event, bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TraceReplay, file, name, source_format, source_file,
                                                device, scale, events, allocs, frees, sample_every,
                                                peak_requested_event, ooms, first_oom_event,
                                                replay_ns, allocator_ns, ns_per_event,
                                                held_at_end_bytes, median_latency_ns, marks, series,
                                                recorded_reserved)

namespace {

void expect_schema(const nlohmann::json& j, const char* schema) {
  if (!j.is_object()) throw ResultsError("not a JSON object");
  if (!j.contains("schema"))
    throw ResultsError(std::string("missing \"schema\" (expected \"") + schema + "\")");
  if (j["schema"] != schema) {
    throw ResultsError("schema " + j["schema"].dump() + " is not \"" + schema +
                       "\" (written by another memrel version?)");
  }
}

}  // namespace

nlohmann::json to_json(const CellResult& cell) {
  nlohmann::json j = cell;
  j["schema"] = kCellSchema;
  if (cell.trace) j["trace"] = *cell.trace;  // optional: absent for workload cells
  if (cell.program_allocator) j["program_allocator"] = *cell.program_allocator;  // program cells
  if (cell.gpu) j["gpu"] = *cell.gpu;  // optional: absent without --gpus
  return j;
}

CellResult cell_from_json(const nlohmann::json& j) {
  expect_schema(j, kCellSchema);
  try {
    CellResult cell = j.get<CellResult>();
    if (j.contains("trace") && !j["trace"].is_null()) cell.trace = j["trace"].get<TraceReplay>();
    if (j.contains("program_allocator") && !j["program_allocator"].is_null()) {
      cell.program_allocator = j["program_allocator"].get<ProgramAllocatorRecord>();
    }

    if (j.contains("gpu") && !j["gpu"].is_null()) cell.gpu = j["gpu"].get<CellGpu>();
    return cell;
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(std::string("cell record does not match ") + kCellSchema + ": " + e.what());
  }
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultsError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (buffer.str().empty()) throw ResultsError(path + ": empty file");
  try {
    return nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw ResultsError(path + ": malformed JSON at byte " + std::to_string(e.byte));
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

CellResult read_cell_file(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  try {
    return cell_from_json(j);
  } catch (const ResultsError& e) {
    throw ResultsError(path + ": " + e.what());
  }
}

}  // namespace memrel
