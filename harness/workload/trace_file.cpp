#include "harness/workload/trace_file.hpp"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "harness/workload/workload.hpp"
#include "platform/input_rules.hpp"
#include "platform/name_characters.hpp"

namespace memrel {
namespace {

using nlohmann::json;

// The records are read straight into memory: the format is little-endian, and so is every
// machine memrel runs on (x86-64, aarch64).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "memrel.trace/1 is little-endian");

constexpr char kMagic[8] = {'M', 'E', 'M', 'T', 'R', 'A', 'C', 'E'};
constexpr std::size_t kPrefixBytes = 16;
// A header holds marks and a curve subsampled to 512 points: kilobytes. More is a corrupt length.
constexpr std::uint32_t kMaxHeaderBytes = 16u << 20;

class Loader {
 public:
  explicit Loader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw WorkloadError(path_, where, what);
  }

  Trace load() {
    try {
      return load_from(InputFd(path_, kMaxTraceFileBytes, "trace"));
    } catch (const InputError& e) {
      fail(e.place(), e.message());
    }
  }

 private:
  Trace load_from(InputFd&& in) {
    const std::uint64_t file_bytes = in.size();
    char prefix[kPrefixBytes];
    // A file shorter than the prefix is a cut trace only when what it holds begins as one: `{}`
    // or a 4-byte pickle was "truncated: 2 bytes" where a longer one is named by its kind (the
    // eighty-third adversarial pass, c10-trace-show-short-*-said-truncated).
    const std::size_t have =
        static_cast<std::size_t>(std::min<std::uint64_t>(file_bytes, kPrefixBytes));
    in.read_exact(prefix, have);
    if (std::memcmp(prefix, kMagic, std::min(have, sizeof kMagic)) != 0) {
      // memrel's other kinds named as such: a history named *.memtrace was to be imported (the
      // seventy-seventh adversarial pass, noted by a tester).
      // A journal's header line holds the run's whole context: read far enough for it (the
      // eighty-first adversarial pass, c10-journal-unnamed-by-advise-and-trace).
      const std::string head = read_input_head(path_, kOtherKindHeadBytes);
      if (std::string kind = other_memrel_kind(head, "trace"); !kind.empty()) fail("", kind);
      // A JSON document (a results file, a workload) is none the importer takes either: its
      // advice to import it was refused by the importer (the same pass,
      // c10-trace-show-wrong-advice).
      if (begins_as_json_document(head))
        fail("",
             "a JSON document (a workload or a results file?), not a memrel trace: a "
             "workload runs as it is (-w), a results file is read by compare and report");
      fail("", "not a memrel trace (no MEMTRACE magic): import it with `memrel trace import`");
    }
    if (file_bytes < kPrefixBytes)
      fail("", "truncated: " + std::to_string(file_bytes) + " bytes, less than the prefix");
    std::uint32_t header_bytes = 0, record_bytes = 0;
    std::memcpy(&header_bytes, prefix + 8, 4);
    std::memcpy(&record_bytes, prefix + 12, 4);
    if (record_bytes != sizeof(TraceRecord))
      fail("", "records of " + std::to_string(record_bytes) + " bytes: this memrel reads " +
                   kTraceSchema + " (16-byte records)");
    if (header_bytes > kMaxHeaderBytes || kPrefixBytes + header_bytes > file_bytes)
      fail("header", "truncated: the prefix announces " + std::to_string(header_bytes) +
                         " header bytes, the file has " + std::to_string(file_bytes) + " in all");
    std::string text(header_bytes, '\0');
    in.read_exact(text.data(), header_bytes);
    Trace trace;
    trace.path = path_;
    std::uint64_t events = read_header(text, trace);
    // A count the file cannot hold is said so before the product: events * 16 wrapped past 2^64
    // and the line read "trailing bytes: 215672 bytes, ... needs 215672" (the forty-seventh
    // adversarial pass, c7-memtrace-events-overflow-wording).
    if (events > file_bytes / sizeof(TraceRecord))
      fail("records", "truncated: " + std::to_string(file_bytes) + " bytes, counts.events = " +
                          std::to_string(events) + " needs more than the file holds (" +
                          std::to_string(sizeof(TraceRecord)) + " bytes each)");
    const std::uint64_t expected = kPrefixBytes + header_bytes + events * sizeof(TraceRecord);
    if (events > (file_bytes / sizeof(TraceRecord)) || file_bytes != expected)
      fail("records", (file_bytes < expected ? "truncated: " : "trailing bytes: ") +
                          std::to_string(file_bytes) + " bytes, counts.events = " +
                          std::to_string(events) + " needs " + std::to_string(expected));
    trace.records.resize(events);
    in.read_exact(trace.records.data(), events * sizeof(TraceRecord));
    check_records(trace);
    return trace;
  }

  std::uint64_t count(const json& j, const char* key, const std::string& where) const {
    if (!j.contains(key) || !j[key].is_number_unsigned())
      fail(where + "." + key, "must be a non-negative integer");
    return j[key].get<std::uint64_t>();
  }

  std::string text(const json& j, const char* key) const {
    if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
      fail(std::string("header.") + key, "must be a non-empty string");
    return j[key].get<std::string>();
  }

  // Returns counts.events.
  std::uint64_t read_header(const std::string& body, Trace& t) const {
    json h;
    try {
      h = parse_input_json(body, path_);  // malformed, ambiguous (a key twice), 1e400
    } catch (const InputError& e) {
      fail("header" + e.place(), e.message());
    }
    if (!h.is_object() || !h.contains("schema")) fail("header", "no \"schema\"");
    if (h["schema"] != kTraceSchema)
      fail("header.schema", "unsupported schema " + h["schema"].dump() + " (this memrel reads \"" +
                                kTraceSchema + "\")");
    t.name = text(h, "name");
    // The workload name in results, tables and pages (platform/name_characters.hpp says why).
    if (std::string c = forbidden_name_character(t.name); !c.empty())
      fail("header.name", "holds " + c +
                              ", a control, invisible, text-direction or noncharacter code point: "
                              "a name holds none");
    // A workload's name rule (workload.cpp): a trace is one workload among the others of a run.
    if (t.name.find_first_of("[]") != std::string::npos)
      fail("header.name", "may not contain '[' or ']' (used for group members)");
    // A CUDA device index, as the importer writes it (0 to 1023): 2^63 read back wrapped, and the
    // cell crashed as if the allocator had (the eleventh adversarial pass, c7-import-device-*).
    if (!h.contains("device") || !h["device"].is_number_unsigned() ||
        h["device"].get<std::uint64_t>() > 1023)
      fail("header.device", "must be a whole number from 0 to 1023");
    t.device = h["device"].get<std::int64_t>();
    if (h.contains("provenance")) t.provenance = h["provenance"];
    // What the importer writes there, and results carry on: a span of -1 was taken (the
    // twenty-eighth adversarial pass, c7-memtrace-header-unchecked).
    if (t.provenance.is_object() && t.provenance.contains("time_span_us") &&
        !t.provenance["time_span_us"].is_null())
      exact_count(t.provenance["time_span_us"], "header.provenance.time_span_us");
    if (h.contains("source") && h["source"].is_object()) {
      // Each a string where given: a number there was nlohmann's type_error, said as memrel's
      // internal error, exit 4 (the thirty-seventh adversarial pass,
      // c7-trace-header-source-not-string-internal-error).
      for (const char* key : {"format", "file"})
        if (h["source"].contains(key) && !h["source"][key].is_string())
          fail(std::string("header.source.") + key,
               "must be a string, not " + h["source"][key].dump().substr(0, 40));
      t.source_format = h["source"].value("format", "");
      t.source_file = h["source"].value("file", "");
    }
    if (!h.contains("counts") || !h["counts"].is_object()) fail("header.counts", "missing");
    const json& c = h["counts"];
    std::uint64_t events = count(c, "events", "header.counts");
    t.allocs = count(c, "allocs", "header.counts");
    t.frees = count(c, "frees", "header.counts");
    t.blocks = count(c, "blocks", "header.counts");
    if (t.blocks > (std::uint64_t{1} << 32)) fail("header.counts.blocks", "more than 2^32");
    // Every block is allocated by one event: more blocks than events is a corrupt count, and
    // would size the loader's per-block tables (9 bytes a block) by the header, not the file.
    if (t.blocks > events || t.allocs > events || t.frees > events)
      fail("header.counts", "blocks " + std::to_string(t.blocks) + ", allocs " +
                                std::to_string(t.allocs) + ", frees " + std::to_string(t.frees) +
                                ": more than the " + std::to_string(events) + " events");
    // The counts the importer writes besides: as the records say, or refused (validate said "ok"
    // of counts.marks "x", -1 or 5 with no marks: the thirty-fourth adversarial pass,
    // c7-trace-header-counts-unchecked). Checked against the records in check_records.
    for (const char* key : {"allocated_at_start", "freed_at_end", "marks"}) {
      if (c.contains(key)) count(c, key, "header.counts");
    }
    if (c.contains("allocated_at_start"))
      allocated_at_start_ = c["allocated_at_start"].get<std::uint64_t>();
    if (c.contains("freed_at_end")) freed_at_end_ = c["freed_at_end"].get<std::uint64_t>();
    // And the record size the prefix gives, where the header repeats it.
    if (h.contains("record_bytes") &&
        (!h["record_bytes"].is_number_unsigned() || h["record_bytes"] != sizeof(TraceRecord)))
      fail("header.record_bytes",
           h["record_bytes"].dump() + ": the prefix says " + std::to_string(sizeof(TraceRecord)));
    t.peak_requested_bytes = count(h, "peak_requested_bytes", "header");
    // What a result holds exactly (JSON's exact integers, docs/results-schema.md): a trace past it
    // ran, and every cell of it crashed as its result was refused (the twelfth adversarial pass,
    // c7-snap-at-start-block-sum).
    if (t.peak_requested_bytes > kMaxTraceBytes)
      fail("header.peak_requested_bytes", std::to_string(t.peak_requested_bytes) +
                                              " bytes: more than 2^53 (8 PiB), which a trace "
                                              "counts at most");
    t.peak_requested_event = count(h, "peak_requested_event", "header");
    if (!h.contains("marks") || !h["marks"].is_array()) fail("header.marks", "must be an array");
    std::uint64_t previous = 0;
    for (std::size_t i = 0; i < h["marks"].size(); ++i) {
      const json& m = h["marks"][i];
      std::string where = "header.marks[" + std::to_string(i) + "]";
      if (!m.is_object()) fail(where, "must be an object");
      TraceMark mark;
      mark.event = count(m, "event", where);
      if (!m.contains("label") || !m["label"].is_string() || m["label"].get<std::string>().empty())
        fail(where + ".label", "must be a non-empty string");
      mark.label = m["label"].get<std::string>();
      if (mark.label.find('#') != std::string::npos)  // as a workload's (workload.cpp)
        fail(where + ".label",
             "may not contain '#' (compare numbers a repeated label's marks: a#2)");
      // As a workload's mark: a newline in a label was taken here, refused there (the
      // twenty-eighth adversarial pass, c7-memtrace-header-unchecked); and the importer's
      // figures beside it are whole numbers.
      if (std::string c = forbidden_name_character(mark.label); !c.empty())
        fail(where + ".label",
             "holds " + c +
                 ", a control, invisible, text-direction or noncharacter code point: a "
                 "label holds none");
      for (const char* figure : {"bytes", "time_us"})
        if (m.contains(figure) && !m[figure].is_null())
          exact_count(m[figure], where + "." + figure);
      if (mark.event > events || mark.event < previous)
        fail(where + ".event", std::to_string(mark.event) +
                                   " is out of order or past the last event (" +
                                   std::to_string(events) + ")");
      previous = mark.event;
      t.marks.push_back(std::move(mark));
    }
    if (c.contains("marks") && c["marks"].get<std::uint64_t>() != t.marks.size())
      fail("header.counts.marks",
           c["marks"].dump() + "; the header has " + std::to_string(t.marks.size()) + " marks");
    if (h.contains("recorded_reserved") && !h["recorded_reserved"].is_null())
      t.recorded_reserved = read_curve(h["recorded_reserved"], events);
    return events;
  }

  // A whole number from 0 to 2^53 (the range of every figure of a results file).
  void exact_count(const json& v, const std::string& where) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(where, "must be a whole number from 0 to 2^53, got " + v.dump());
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxExactInteger))
      fail(where, v.dump() + " is beyond 2^53");
  }

  RecordedCurve read_curve(const json& j, std::uint64_t events) const {
    const std::string where = "header.recorded_reserved.points";
    if (!j.is_object() || !j.contains("points") || !j["points"].is_array())
      fail(where, "must be an array of [event, bytes]");
    RecordedCurve curve;
    std::uint64_t highest = 0;
    for (std::size_t i = 0; i < j["points"].size(); ++i) {
      const json& p = j["points"][i];
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() ||
          !p[1].is_number_unsigned() || p[0].get<std::uint64_t>() > events ||
          p[1].get<std::uint64_t>() > kMaxTraceBytes)
        fail(where + "[" + std::to_string(i) + "]",
             "must be [event <= counts.events, bytes <= 2^53]");
      // In event order, as the importer writes them: reversed, the curve was carried into
      // results backwards (the twenty-eighth adversarial pass, c7-memtrace-header-unchecked).
      if (!curve.event.empty() && p[0].get<std::uint64_t>() < curve.event.back())
        fail(where + "[" + std::to_string(i) + "]",
             "event " + p[0].dump() + " before the point before it (" +
                 std::to_string(curve.event.back()) + "): points are in event order");
      curve.event.push_back(p[0].get<std::uint64_t>());
      curve.bytes.push_back(p[1].get<std::uint64_t>());
      highest = std::max(highest, curve.bytes.back());
    }
    // Its peak is at least every point's bytes (a peak_bytes of 1 beside points of gigabytes).
    if (j.contains("peak_bytes") &&
        (!j["peak_bytes"].is_number_unsigned() || j["peak_bytes"].get<std::uint64_t>() < highest))
      fail("header.recorded_reserved.peak_bytes",
           "must be a whole number of at least the points' highest bytes (" +
               std::to_string(highest) + "), got " + j["peak_bytes"].dump());
    return curve;
  }

  // One pass: ops, ids, sizes, every block allocated once before its one free of the same size,
  // none live at the end; then the counts and the peak against the header's.
  void check_records(Trace& t) const {
    enum : std::uint8_t { kNever, kLive, kFreed };
    std::vector<std::uint8_t> state(t.blocks, kNever);
    std::vector<std::uint64_t> size_of(t.blocks, 0);
    std::uint64_t allocs = 0, live = 0, peak = 0, peak_event = 0;
    for (std::size_t i = 0; i < t.records.size(); ++i) {
      const TraceRecord& r = t.records[i];
      auto where = [i] { return "records[" + std::to_string(i) + "]"; };
      if (r.op != static_cast<std::uint8_t>(TraceOp::kAlloc) &&
          r.op != static_cast<std::uint8_t>(TraceOp::kFree))
        fail(where(), "unknown op " + std::to_string(r.op) + " (1 alloc, 2 free)");
      if (r.zero[0] != 0 || r.zero[1] != 0 || r.zero[2] != 0)
        fail(where(), "bytes 1-3 must be zero");
      if (r.block >= t.blocks)
        fail(where(), "block id " + std::to_string(r.block) +
                          " out of range (counts.blocks = " + std::to_string(t.blocks) + ")");
      if (r.size == 0 || r.size > kMaxRequestBytes)
        fail(where(), "size " + std::to_string(r.size) + " out of range (1 to 2^48)");
      std::uint8_t& s = state[r.block];
      if (r.op == static_cast<std::uint8_t>(TraceOp::kAlloc)) {
        if (s != kNever) fail(where(), "block " + std::to_string(r.block) + " allocated twice");
        s = kLive;
        size_of[r.block] = r.size;
        ++allocs;
        live += r.size;
        if (live > peak) {
          peak = live;
          peak_event = i + 1;
        }
      } else {
        if (s != kLive)
          fail(where(), "free of block " + std::to_string(r.block) +
                            (s == kNever ? ", never allocated" : ", already freed"));
        if (size_of[r.block] != r.size)
          fail(where(), "free of block " + std::to_string(r.block) + " with size " +
                            std::to_string(r.size) + ", allocated with " +
                            std::to_string(size_of[r.block]));
        s = kFreed;
        live -= r.size;
      }
    }
    for (std::uint64_t b = 0; b < t.blocks; ++b) {
      if (state[b] == kLive)
        fail("records", "block " + std::to_string(b) + " is still live at the end");
    }
    if (allocs != t.allocs || t.records.size() - allocs != t.frees || allocs != t.blocks)
      fail("header.counts", "allocs " + std::to_string(t.allocs) + ", frees " +
                                std::to_string(t.frees) + ", blocks " + std::to_string(t.blocks) +
                                "; the records have " + std::to_string(allocs) + " allocs and " +
                                std::to_string(t.records.size() - allocs) + " frees");
    // The blocks live from the start come first, allocs; those freed at the end come last, frees.
    if (allocated_at_start_) {
      std::uint64_t leading = 0;
      while (leading < t.records.size() &&
             t.records[leading].op == static_cast<std::uint8_t>(TraceOp::kAlloc))
        ++leading;
      if (*allocated_at_start_ > leading)
        fail("header.counts.allocated_at_start", std::to_string(*allocated_at_start_) +
                                                     "; the records begin with " +
                                                     std::to_string(leading) + " allocs");
    }
    if (freed_at_end_) {
      std::uint64_t trailing = 0;
      while (trailing < t.records.size() && t.records[t.records.size() - 1 - trailing].op ==
                                                static_cast<std::uint8_t>(TraceOp::kFree))
        ++trailing;
      if (*freed_at_end_ > trailing)
        fail("header.counts.freed_at_end", std::to_string(*freed_at_end_) +
                                               "; the records end with " +
                                               std::to_string(trailing) + " frees");
    }
    if (peak != t.peak_requested_bytes || peak_event != t.peak_requested_event)
      fail("header.peak_requested_bytes", std::to_string(t.peak_requested_bytes) + " at event " +
                                              std::to_string(t.peak_requested_event) +
                                              "; the records give " + std::to_string(peak) +
                                              " at event " + std::to_string(peak_event));
  }

  std::string path_;
  mutable std::optional<std::uint64_t> allocated_at_start_,
      freed_at_end_;  // the header's, if given
};

}  // namespace

bool is_trace_path(const std::string& path) {
  // Told by its magic: `trace import X -o snap.trace` wrote a trace, whatever its name.
  const std::string head = read_input_head(path, 64);
  if (head.compare(0, sizeof kMagic, std::string(kMagic, sizeof kMagic)) == 0) return true;
  // Content before name, as run's dispatcher tells a file (cli/trace_import.cpp): a JSON object
  // named *.memtrace is the workload it is (it was "no MEMTRACE magic", where the same file
  // named *.pickle ran: the nineteenth adversarial pass, c10-run-workload-json-named-memtrace).
  if (begins_as_json_document(head)) return false;
  const std::string ext = kTraceExtension;
  return path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
}

Trace load_trace_file(const std::string& path) { return Loader(path).load(); }

}  // namespace memrel
