// The memrel.trace/1 loader: what loads, and one line naming the file and the place for every
// defect, before any cell runs.
#include "harness/workload/trace_file.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "harness/workload/workload.hpp"
#include "trace_test_support.hpp"

namespace memrel {
namespace {

using testing::alloc_record;
using testing::free_record;

const std::vector<TraceRecord> kRecords = {alloc_record(0, 100), alloc_record(1, 50),
                                           free_record(0, 100),  alloc_record(2, 200),
                                           free_record(2, 200),  free_record(1, 50)};

TEST(TraceFile, LoadsTheHeaderAndTheRecords) {
  testing::TempDir dir;
  nlohmann::json header = testing::trace_header(kRecords, "run-a");
  header["marks"] = {{{"event", 2}, {"label", "oom"}}, {{"event", 6}, {"label", "snapshot"}}};
  header["recorded_reserved"] = {{"points", {{0, 1024}, {6, 2048}}}};
  std::string path = dir.file("a.memtrace");
  testing::write_text(path, testing::trace_bytes(header, kRecords));
  Trace t = load_trace_file(path);
  EXPECT_EQ(t.name, "run-a");
  EXPECT_EQ(t.source_format, "rmm-log");
  EXPECT_EQ(t.records.size(), 6u);
  EXPECT_EQ(t.records[3].block, 2u);
  EXPECT_EQ(t.records[3].size, 200u);
  EXPECT_EQ(t.blocks, 3u);
  EXPECT_EQ(t.peak_requested_bytes, 250u);
  EXPECT_EQ(t.peak_requested_event, 4u);
  ASSERT_EQ(t.marks.size(), 2u);
  EXPECT_EQ(t.marks[1].label, "snapshot");
  ASSERT_TRUE(t.recorded_reserved.has_value());
  EXPECT_EQ(t.recorded_reserved->bytes, (std::vector<std::uint64_t>{1024, 2048}));
}

TEST(TraceFile, IsAWorkloadWhenItsNameEndsInMemtrace) {
  testing::TempDir dir;
  Workload w = parse_workload_file(testing::write_trace(dir, "from-rmm", kRecords));
  EXPECT_EQ(w.name, "from-rmm");
  ASSERT_TRUE(w.trace);
  EXPECT_EQ(w.trace->records.size(), 6u);
  EXPECT_TRUE(w.steps.empty());
}

struct Defect {
  const char* name;
  std::function<std::string()> bytes;  // the file
  const char* message;                 // what follows "FILE: " (its start, where sizes follow)
};

std::string good() { return testing::trace_bytes(testing::trace_header(kRecords), kRecords); }

std::string with_header(const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json h = testing::trace_header(kRecords);
  change(h);
  return testing::trace_bytes(h, kRecords);
}

std::string with_records(const std::function<void(std::vector<TraceRecord>&)>& change) {
  std::vector<TraceRecord> r = kRecords;
  change(r);
  return testing::trace_bytes(testing::trace_header(kRecords), r);
}

class TraceFileDefect : public ::testing::TestWithParam<Defect> {};

TEST_P(TraceFileDefect, IsOneLineNamingTheFileAndThePlace) {
  testing::TempDir dir;
  std::string path = dir.file("bad.memtrace");
  testing::write_text(path, GetParam().bytes());
  try {
    load_trace_file(path);
    FAIL() << "loaded";
  } catch (const WorkloadError& e) {
    std::string expected = path + ": " + GetParam().message;
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Defects, TraceFileDefect,
    ::testing::Values(
        Defect{"Empty", [] { return std::string(); }, "truncated: 0 bytes, less than the prefix"},
        Defect{"NotATrace", [] { return std::string("Thread,Time,Action,Pointer,Size"); },
               "not a memrel trace (no MEMTRACE magic): import it with `memrel trace import`"},
        // Named as the document it is: "import it" was advice the importer then refused (the
        // eighty-first adversarial pass, c10-trace-show-wrong-advice).
        Defect{"AJsonDocument", [] { return std::string("{\"schema\": \"memrel.workload/1\"}  "); },
               "a JSON document (a workload or a results file?), not a memrel trace"},
        Defect{"OtherRecordSize",
               [] { return testing::trace_bytes(testing::trace_header(kRecords), kRecords, 24); },
               "records of 24 bytes: this memrel reads memrel.trace/1 (16-byte records)"},
        Defect{"HeaderCut", [] { return good().substr(0, 40); },
               "header: truncated: the prefix announces "},
        Defect{"RecordsCut", [] { return good().substr(0, good().size() - 3); },
               "records: truncated: "},
        Defect{"TrailingBytes", [] { return good() + "x"; }, "records: trailing bytes: "},
        Defect{
            "OtherSchema",
            [] { return with_header([](nlohmann::json& h) { h["schema"] = "memrel.trace/2"; }); },
            "header.schema: unsupported schema \"memrel.trace/2\" (this memrel reads "
            "\"memrel.trace/1\")"},
        Defect{"NameWithABracket",
               [] { return with_header([](nlohmann::json& h) { h["name"] = "a[1]"; }); },
               "header.name: may not contain '[' or ']'"},
        Defect{"NoCounts", [] { return with_header([](nlohmann::json& h) { h.erase("counts"); }); },
               "header.counts: missing"},
        Defect{"MarkPastTheEnd",
               [] {
                 return with_header([](nlohmann::json& h) {
                   h["marks"] = {{{"event", 7}, {"label", "oom"}}};
                 });
               },
               "header.marks[0].event: 7 is out of order or past the last event (6)"},
        // Past what a result holds exactly: every cell of it crashed as its result was refused.
        Defect{"PeakPastTwoToThe53",
               [] {
                 return with_header([](nlohmann::json& h) {
                   h["peak_requested_bytes"] = (std::uint64_t{1} << 53) + 1;
                 });
               },
               "header.peak_requested_bytes: 9007199254740993 bytes: more than 2^53"},
        Defect{"RecordedReservedPastTwoToThe53",
               [] {
                 return with_header([](nlohmann::json& h) {
                   h["recorded_reserved"] = {
                       {"points", {{0, 1024}, {6, (std::uint64_t{1} << 53) + 1}}}};
                 });
               },
               "header.recorded_reserved.points[1]: must be [event <= counts.events, bytes <= "
               "2^53]"},
        Defect{"UnknownOp", [] { return with_records([](auto& r) { r[1].op = 9; }); },
               "records[1]: unknown op 9 (1 alloc, 2 free)"},
        Defect{"IdOutOfRange", [] { return with_records([](auto& r) { r[3].block = 7; }); },
               "records[3]: block id 7 out of range (counts.blocks = 3)"},
        Defect{"SizeZero", [] { return with_records([](auto& r) { r[0].size = 0; }); },
               "records[0]: size 0 out of range (1 to 2^48)"},
        Defect{"AllocatedTwice",
               [] { return with_records([](auto& r) { r[3] = alloc_record(1, 200); }); },
               "records[3]: block 1 allocated twice"},
        Defect{"FreedTwice",
               [] { return with_records([](auto& r) { r[4] = free_record(0, 100); }); },
               "records[4]: free of block 0, already freed"},
        Defect{"FreeOfOtherSize", [] { return with_records([](auto& r) { r[2].size = 99; }); },
               "records[2]: free of block 0 with size 99, allocated with 100"},
        Defect{"LiveAtTheEnd",
               [] {
                 std::vector<TraceRecord> r(kRecords.begin(), kRecords.end() - 1);
                 nlohmann::json h = testing::trace_header(r);
                 return testing::trace_bytes(h, r);
               },
               "records: block 1 is still live at the end"},
        Defect{"CountsContradicted",
               [] { return with_header([](nlohmann::json& h) { h["counts"]["frees"] = 2; }); },
               "header.counts: allocs 3, frees 2, blocks 3; the records have 3 allocs and 3 "
               "frees"},
        // A 200-byte file must not make the loader size its block tables at 4 billion.
        Defect{"BlocksBeyondTheEvents",
               [] {
                 return with_header(
                     [](nlohmann::json& h) { h["counts"]["blocks"] = std::uint64_t{1} << 32; });
               },
               "header.counts: blocks 4294967296, allocs 3, frees 3: more than the 6 events"},
        Defect{
            "PeakContradicted",
            [] { return with_header([](nlohmann::json& h) { h["peak_requested_bytes"] = 300; }); },
            "header.peak_requested_bytes: 300 at event 4; the records give 250 at event 4"}),
    [](const ::testing::TestParamInfo<Defect>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace memrel
