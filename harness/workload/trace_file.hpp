// A real program's allocation trace in memrel's own format, memrel.trace/1 (docs/traces.md),
// as `memrel trace import` writes it from a PyTorch snapshot or an RMM log.
//
// The file is a 16-byte prefix ("MEMTRACE", u32 header bytes, u32 record bytes), a JSON header,
// then fixed-size little-endian records, so that a million events load with one read and one
// pass of checks. Everything is checked on load: a trace that loads replays without surprises.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memrel {

constexpr const char* kTraceSchema = "memrel.trace/1";
constexpr const char* kTraceExtension = ".memtrace";
// The cap on a trace file (docs/inputs.md): 128 million events. A trace is read whole into
// memory (16 bytes an event), and a real training step's trace is about a million events.
constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t{2} << 30;
// The largest byte figure a trace holds (its peak, its recorded reserved curve): what a result
// holds exactly, JSON's exact integers (docs/results-schema.md).
constexpr std::uint64_t kMaxTraceBytes = std::uint64_t{1} << 53;

enum class TraceOp : std::uint8_t { kAlloc = 1, kFree = 2 };

// One event exactly as stored: op u8, 3 zero bytes, block id u32, size u64 (little-endian).
struct TraceRecord {
  std::uint8_t op;
  std::uint8_t zero[3];
  std::uint32_t block;
  std::uint64_t size;
};
static_assert(sizeof(TraceRecord) == 16, "memrel.trace/1 records are 16 bytes");

// A moment of the recording (an OOM, a snapshot, an RMM allocate failure), after `event` events.
struct TraceMark {
  std::uint64_t event = 0;
  std::string label;
};

// The recording allocator's reserved bytes (PyTorch segments): the reference a replay is
// compared with. Subsampled by the importer, keeping the peak.
struct RecordedCurve {
  std::vector<std::uint64_t> event, bytes;
};

struct Trace {
  std::string path, name, source_format, source_file;
  std::int64_t device = 0;
  std::uint64_t blocks = 0, allocs = 0, frees = 0;
  std::uint64_t peak_requested_bytes = 0, peak_requested_event = 0;  // unscaled, as recorded
  std::vector<TraceRecord> records;
  std::vector<TraceMark> marks;  // in event order
  std::optional<RecordedCurve> recorded_reserved;
  // The header's provenance as the importer wrote it (a snapshot's allocator_settings among it);
  // null when absent. Read by `memrel advise` for the configuration the program ran under.
  nlohmann::json provenance;
};

// Whether a workload path names a trace (by its extension).
bool is_trace_path(const std::string& path);

// Loads and checks a trace. Throws WorkloadError, one line naming the file and the place:
// truncated, wrong magic or schema, ids out of range, a block freed twice or never freed, counts
// or peak that the records contradict.
Trace load_trace_file(const std::string& path);

}  // namespace memrel
