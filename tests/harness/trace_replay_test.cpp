// A real program's trace replayed through the real binary: an RMM log imported with `memrel
// trace import`, then `memrel run` on host-malloc-retain, and the same log given to `memrel run`
// directly (imported on the fly). The importer's own rules are tested in
// tests/python/test_trace_import.py; here, what a cell makes of a trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "harness/results/results.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

constexpr std::uint64_t MiB = 1 << 20;

// Events after import: 0x9000 is freed but never allocated, so it is allocated at the start;
// 0x2000 is live at the end, so it is freed at the end. Requested peaks at 2 + 4 + 8 = 14 MiB
// after the alloc of 0x3000, event 5 of 8.
constexpr const char* kLog =
    "Thread,Time,Action,Pointer,Size,Stream\n"
    "7,10:00:00.000001,allocate,0x1000,1048576,0x0\n"
    "7,10:00:00.000002,allocate,0x2000,4194304,0x0\n"
    "7,10:00:00.000003,free,0x1000,1048576,0x0\n"
    "7,10:00:00.000004,allocate failure,(nil),68719476736,0x0\n"
    "7,10:00:00.000005,allocate,0x3000,8388608,0x0\n"
    "7,10:00:00.000006,free,0x3000,8388608,0x0\n"
    "7,10:00:00.000007,free,0x9000,2097152,0x0\n";

class TraceReplayThroughTheBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = dir_.file("train-step.csv");
    testing::write_text(log_, kLog);
  }

  CellResult run(const std::string& workload, const std::string& options = "",
                 const std::string& backend = "host-malloc-retain") {
    std::string out = dir_.file("run.json");
    auto r = testing::run_command(testing::memrel_command("run -b " + backend + " -w '" + workload +
                                                          "' -o '" + out + "' " + options));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    RunResults results = read_run_file(out);
    EXPECT_EQ(results.cells.size(), 1u);
    return results.cells.at(0);
  }

  testing::TempDir dir_;
  std::string log_;
};

TEST_F(TraceReplayThroughTheBinary, AnImportedTraceReplaysWithItsExactPeakMarksAndTimeSeries) {
  std::string trace = dir_.file("train-step.memtrace");
  auto imported = testing::run_command(
      testing::memrel_command("trace import '" + log_ + "' -o '" + trace + "'"));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;

  CellResult c = run(trace);
  ASSERT_EQ(c.status, "ok") << c.reason;
  EXPECT_EQ(c.workload, "train-step");
  EXPECT_EQ(c.metrics.peak_requested, 14 * MiB);
  EXPECT_EQ(testing::mark_at(c, "trace-start").requested, 0u);
  EXPECT_EQ(testing::mark_at(c, "trace-peak-requested").requested, 14 * MiB);
  // host-malloc-retain's allocated is glibc's mallinfo2, which sees nothing of AddressSanitizer's
  // allocator: checked in the plain build only (the asan preset, docs/testing.md).
  if (!MEMREL_UNDER_ASAN) {
    EXPECT_GE(*testing::mark_at(c, "trace-peak-requested").allocated, 14 * MiB);
  }
  EXPECT_EQ(testing::mark_at(c, "allocate-failure@4").requested, 6 * MiB);
  EXPECT_EQ(testing::mark_at(c, "trace-end").requested, 0u);
  EXPECT_EQ(testing::mark_at(c, "trace-end-after-release").requested, 0u);

  ASSERT_TRUE(c.trace.has_value());
  const TraceReplay& t = *c.trace;
  EXPECT_EQ(t.events, 8u);
  EXPECT_EQ(t.scale, "1");
  EXPECT_EQ(t.peak_requested_event, 5u);
  EXPECT_EQ(t.ooms, 0u);
  EXPECT_EQ(t.source_format, "rmm-log");
  // Every event sampled (8 < 2000), the start, and the probe after the release at the end.
  EXPECT_EQ(t.series.event, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 8}));
  EXPECT_EQ(t.series.requested, (std::vector<std::uint64_t>{0, 2 * MiB, 3 * MiB, 7 * MiB, 6 * MiB,
                                                            14 * MiB, 6 * MiB, 4 * MiB, 0, 0}));
  EXPECT_EQ(t.series.reserved.size(), t.series.event.size());
  EXPECT_TRUE(t.series.reserved.back().has_value());
  ASSERT_TRUE(t.ns_per_event.has_value());
  EXPECT_GT(*t.ns_per_event, 0.0);
  EXPECT_EQ(t.marks.front().label, "trace-start");
  EXPECT_EQ(t.marks.back().label, "trace-end-after-release");
  // The release at the end, as a workload's: effectiveness, and its step.
  ASSERT_EQ(c.releases.size(), 1u);
  ASSERT_EQ(c.steps.size(), 1u);
  EXPECT_EQ(c.steps[0].op, "release");
  if (!MEMREL_UNDER_ASAN) {
    EXPECT_TRUE(c.metrics.utilization.has_value());  // mallinfo2, above
  }
  EXPECT_GT(c.metrics.median_latency_ns.at("alloc"), 0u);
}

TEST_F(TraceReplayThroughTheBinary, ALogGivenToRunIsImportedOnTheFlyAndTheTemporaryRemoved) {
  std::filesystem::create_directory(dir_.file("tmp"));
  std::string out = dir_.file("scaled.json");
  auto r = testing::run_command("TMPDIR='" + dir_.file("tmp") + "' " +
                                testing::memrel_command("run -b host-malloc-retain -w '" + log_ +
                                                        "' --trace-scale 1/4 -o '" + out + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  RunResults results = read_run_file(out);
  const CellResult& scaled = results.cells.at(0);
  ASSERT_EQ(scaled.status, "ok") << scaled.reason;
  EXPECT_EQ(scaled.metrics.peak_requested, 14 * MiB / 4);
  EXPECT_EQ(scaled.trace->scale, "1/4");
  EXPECT_EQ(scaled.workload_source, log_);  // the file given, not the temporary trace
  EXPECT_EQ(scaled.trace->file, log_);
  EXPECT_EQ(results.context["options"]["workloads"][0], log_);
  EXPECT_EQ(results.context["options"]["trace_scale"], "1/4");
  EXPECT_TRUE(std::filesystem::is_empty(dir_.file("tmp"))) << "a temporary file was left";
}

// 2^48 bytes, more than any process's address space: malloc returns NULL whatever the
// overcommit policy, so the backend throws OutOfMemory for that one event.
// null's blocks alias one small buffer: the replay must not write them (it crashed on the H200
// with every recorded trace). The committed transformer trace, recorded on the H200, replays.
TEST_F(TraceReplayThroughTheBinary, NullReplaysARecordedTraceWithoutTouchingItsBlocks) {
  CellResult c = run(std::string(MEMREL_SOURCE_DIR) +
                         "/benchmarks/workloads/trace-transformer-varying-length.memtrace",
                     "", "null");
  ASSERT_EQ(c.status, "ok") << c.reason;
  ASSERT_TRUE(c.trace.has_value());
  EXPECT_EQ(c.trace->events, 13296u);
  EXPECT_EQ(c.metrics.peak_reserved, c.metrics.peak_requested) << "null reserves what is live";
}

TEST_F(TraceReplayThroughTheBinary, AnAllocationTheBackendCannotGiveIsCountedAndSkipped) {
  std::string log = dir_.file("too-big.csv");
  testing::write_text(log,
                      "Thread,Time,Action,Pointer,Size,Stream\n"
                      "7,10:00:00.000001,allocate,0x1000,1048576,0x0\n"
                      "7,10:00:00.000002,allocate,0x2000,281474976710656,0x0\n"
                      "7,10:00:00.000003,allocate,0x3000,2097152,0x0\n"
                      "7,10:00:00.000004,free,0x2000,281474976710656,0x0\n"
                      "7,10:00:00.000005,free,0x1000,1048576,0x0\n");
  std::string out = dir_.file("oom.json");
  auto r = testing::run_command(testing::memrel_command("run -b host-malloc-retain -w '" + log +
                                                        "' --trace-scale 1 -o '" + out + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.output;  // an OOM is the cell's result, not a failure
  const CellResult c = read_run_file(out).cells.at(0);
  EXPECT_EQ(c.status, "oom");
  EXPECT_NE(c.reason.find("1 of 3 allocations failed (skipped, with their frees); the first at "
                          "event 1: out of memory allocating 281474976710656 bytes"),
            std::string::npos)
      << c.reason;
  ASSERT_TRUE(c.trace.has_value());
  EXPECT_EQ(c.trace->ooms, 1u);
  EXPECT_EQ(c.trace->first_oom_event, 1u);
  EXPECT_EQ(testing::mark_at(c, "replay-oom@2").requested, MiB);
  EXPECT_EQ(c.metrics.peak_requested, 3 * MiB);  // the rest replayed without the failed block
  EXPECT_EQ(testing::mark_at(c, "trace-end").requested, 0u);
}

TEST_F(TraceReplayThroughTheBinary, AnUnusableLogStopsTheRunWithOneLine) {
  std::string bad = dir_.file("bad.csv");
  testing::write_text(bad, "Thread,Time,Action,Pointer,Size,Stream\n7,10:00:00.1,allocate,0x1\n");
  std::string out = dir_.file("never.json");
  auto r = testing::run_command(
      testing::memrel_command("run -b host-malloc-retain -w '" + bad + "' -o '" + out + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "memrel: " + bad +
                          ": line 2: expected 6 fields (Thread,Time,Action,Pointer,Size,Stream), "
                          "got 4\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(TraceReplayThroughTheBinary, ABrokenTraceIsRefusedBeforeAnyCell) {
  std::string trace = dir_.file("cut.memtrace");
  testing::write_text(trace, "MEMTRACE");
  auto r = testing::run_command(testing::memrel_command("validate '" + trace + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "memrel: " + trace + ": truncated: 8 bytes, less than the prefix\n");
}

}  // namespace
}  // namespace memrel
