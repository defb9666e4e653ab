// memrel.trace/1 files written by hand for the loader's and the plan's tests: the importer's
// output format (docs/traces.md), with the header's counts and peak derived from the records so
// that a test changes only what it means to break.
#pragma once

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/workload/trace_file.hpp"
#include "test_support.hpp"

namespace memrel::testing {

inline TraceRecord alloc_record(std::uint32_t block, std::uint64_t size) {
  return {static_cast<std::uint8_t>(TraceOp::kAlloc), {0, 0, 0}, block, size};
}
inline TraceRecord free_record(std::uint32_t block, std::uint64_t size) {
  return {static_cast<std::uint8_t>(TraceOp::kFree), {0, 0, 0}, block, size};
}

// The header the importer would write for these records.
inline nlohmann::json trace_header(const std::vector<TraceRecord>& records,
                                   const std::string& name = "t") {
  std::uint64_t allocs = 0, live = 0, peak = 0, peak_event = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].op == static_cast<std::uint8_t>(TraceOp::kAlloc)) {
      ++allocs;
      live += records[i].size;
      if (live > peak) {
        peak = live;
        peak_event = i + 1;
      }
    } else {
      live -= records[i].size;
    }
  }
  return {{"schema", kTraceSchema},
          {"name", name},
          {"source", {{"format", "rmm-log"}, {"file", name + ".csv"}}},
          {"device", 0},
          {"record_bytes", 16},
          {"counts",
           {{"events", records.size()},
            {"allocs", allocs},
            {"frees", records.size() - allocs},
            {"blocks", allocs}}},
          {"peak_requested_bytes", peak},
          {"peak_requested_event", peak_event},
          {"marks", nlohmann::json::array()},
          {"recorded_reserved", nullptr}};
}

// The file's bytes: "MEMTRACE", u32 header bytes, u32 record bytes, header, records.
inline std::string trace_bytes(const nlohmann::json& header,
                               const std::vector<TraceRecord>& records,
                               std::uint32_t record_bytes = 16) {
  std::string body = header.dump();
  while ((16 + body.size()) % 8 != 0) body += ' ';
  std::string out = "MEMTRACE";
  auto u32 = [&out](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(static_cast<std::uint32_t>(body.size()));
  u32(record_bytes);
  out += body;
  out.append(reinterpret_cast<const char*>(records.data()), records.size() * sizeof(TraceRecord));
  return out;
}

inline std::string write_trace(const TempDir& dir, const std::string& name,
                               const std::vector<TraceRecord>& records) {
  std::string path = dir.file(name + ".memtrace");
  write_text(path, trace_bytes(trace_header(records, name), records));
  return path;
}

}  // namespace memrel::testing
