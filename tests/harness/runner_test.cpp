// The runner end to end through the real binary: cells in child processes, real RSS probes.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "allocators/backend_table.hpp"
#include "harness/results/results.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

constexpr std::uint64_t MiB = 1 << 20;

const CellResult& find_cell(const RunResults& run, const std::string& backend,
                            const std::string& workload) {
  for (const auto& c : run.cells) {
    if (c.backend == backend && c.workload == workload) return c;
  }
  throw std::runtime_error("no cell " + backend + " x " + workload);
}

class RunnerTest : public ::testing::Test {
 protected:
  RunResults run(const std::string& args, int expected_exit, const std::string& env = "") {
    std::string out = dir_.file("run.json");
    auto r = testing::run_command(env + " " +
                                  testing::memrel_command("run " + args + " -o '" + out + "'"));
    EXPECT_EQ(r.exit_code, expected_exit) << r.output;
    output_ = r.output;
    return read_run_file(out);
  }
  testing::TempDir dir_;
  std::string output_;
};

TEST_F(RunnerTest, HostRetainKeepsFreedMemoryResidentUntilMallocTrim) {
  if (MEMREL_UNDER_ASAN)
    GTEST_SKIP() << "AddressSanitizer's allocator replaces glibc's: mallopt, mallinfo2 and "
                    "malloc_trim (this test's figures) see none of its memory";
  RunResults r = run("-b host-malloc-retain -w single-large", 0);
  const CellResult& c = find_cell(r, "host-malloc-retain", "single-large");
  ASSERT_EQ(c.status, "ok") << c.reason;
  const std::int64_t tensor = 360 * MiB;
  // The seeds' three phases, on the host: resident after alloc, still resident after free
  // (cached), returned after free + release.
  EXPECT_GE(testing::mark_at(c, "after-alloc").device_used_delta, tensor);
  EXPECT_GE(testing::mark_at(c, "after-free-only").device_used_delta, tensor);
  EXPECT_GE(*testing::mark_at(c, "after-free-only").reserved, static_cast<std::uint64_t>(tensor));
  EXPECT_LT(testing::mark_at(c, "after-free-release").device_used_delta,
            static_cast<std::int64_t>(1 * MiB));
  ASSERT_TRUE(c.metrics.release_effectiveness.has_value());
  EXPECT_GT(*c.metrics.release_effectiveness, 0.99);
  EXPECT_GT(c.metrics.median_latency_ns.at("alloc"), 0u);
}

TEST_F(RunnerTest, HostDefaultReturnsLargeBlocksAtFree) {
  RunResults r = run("-b host-malloc -w single-large", 0);
  const CellResult& c = find_cell(r, "host-malloc", "single-large");
  ASSERT_EQ(c.status, "ok") << c.reason;
  EXPECT_GE(testing::mark_at(c, "after-alloc").device_used_delta,
            static_cast<std::int64_t>(360 * MiB));
  EXPECT_LT(testing::mark_at(c, "after-free-only").device_used_delta,
            static_cast<std::int64_t>(1 * MiB));
}

TEST_F(RunnerTest, EveryCellIsRecordedAndCudaCellsSayWhyWhenNoDevice) {
  RunResults r = run("-w temp-then-delete,fragmentation --host-capacity 256MiB", 0);
  // All table rows but null, and every backend file of the backends folder.
  std::size_t backend_files =
      folder_backends(std::string(MEMREL_SOURCE_DIR) + "/benchmarks/backends").size();
  EXPECT_GE(backend_files, 2u);
  EXPECT_EQ(r.cells.size(), 2 * (all_backends().size() - 1 + backend_files));
  EXPECT_EQ(r.context["options"]["host_capacity_bytes"], 256 * MiB);
  // Availability as the binary sees it (a backend file's library is looked for next to it).
  auto listing = testing::run_command(testing::memrel_command("list --json"));
  std::map<std::string, bool> available;
  nlohmann::json listed = nlohmann::json::parse(listing.output);
  for (const auto& b : listed["backends"])
    available[b["name"].get<std::string>()] = b["available"].get<bool>();
  for (const auto& c : r.cells) {
    if (available.at(c.backend)) {
      EXPECT_TRUE(c.status == "ok" || c.status == "unavailable") << c.backend << ": " << c.reason;
    } else {
      EXPECT_EQ(c.status, "unavailable");
      EXPECT_FALSE(c.reason.empty());
    }
  }
  const CellResult& frag = find_cell(r, "host-malloc-retain", "fragmentation");
  EXPECT_EQ(frag.setup.capacity_bytes, 256 * MiB);
  EXPECT_EQ(frag.status, "ok");
  EXPECT_GT(frag.steps.size(), 4u);
  EXPECT_NE(output_.find("host-malloc-retain: "), std::string::npos)
      << "a progress line per backend";
  EXPECT_NE(output_.find(" cells: "), std::string::npos) << "a closing summary";
}

TEST_F(RunnerTest, ACrashingCellIsRecordedAndTheSuiteGoesOn) {
  RunResults r =
      run("-b host-malloc,host-malloc-retain -w temp-then-delete", 3, "MEMREL_INJECT_FAULT=abort");
  ASSERT_EQ(r.cells.size(), 2u);
  for (const auto& c : r.cells) {
    EXPECT_EQ(c.status, "crashed");
    EXPECT_NE(c.reason.find("signal 6"), std::string::npos) << c.reason;
    ASSERT_TRUE(c.timing.has_value());
    EXPECT_EQ(c.timing->started_by, "exec") << "host cells are exec'd unless --zygote all";
  }
}

TEST_F(RunnerTest, ACrashInACellForkedFromAZygoteIsRecordedAsBefore) {
  RunResults r = run("-b host-malloc,host-malloc-retain -w temp-then-delete --zygote all", 3,
                     "MEMREL_INJECT_FAULT=abort");
  ASSERT_EQ(r.cells.size(), 2u);
  for (const auto& c : r.cells) {
    EXPECT_EQ(c.status, "crashed");
    EXPECT_NE(c.reason.find("signal 6"), std::string::npos) << c.reason;
    ASSERT_TRUE(c.timing.has_value());
    EXPECT_EQ(c.timing->started_by, "zygote");
  }
}

TEST_F(RunnerTest, AHangingCellForkedFromAZygoteTimesOut) {
  RunResults r = run("-b host-malloc -w temp-then-delete --timeout 1 --zygote all", 3,
                     "MEMREL_INJECT_FAULT=hang");
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].status, "timeout");
  EXPECT_EQ(r.cells[0].timing->started_by, "zygote");
  EXPECT_LT(r.cells[0].wall_ns, 10'000'000'000u);
}

// Cells start warm (docs/design.md, "Cells start warm"): forked from their backend's zygote, or
// with --no-zygote by fork + exec; the results say which, and where the time went; the bytes are
// the same either way.
TEST_F(RunnerTest, CellsForkedFromAZygoteSayHowAndMeasureWhatExecdCellsMeasure) {
  const std::string cells = "-b host-malloc,host-malloc-retain -w single-large,fragmentation";
  RunResults warm = run(cells + " --zygote all", 0);
  EXPECT_NE(output_.find("time split of 4 cells that ran (4 from a zygote, 0 by exec)"),
            std::string::npos)
      << output_;
  RunResults cold = run(cells + " --no-zygote", 0);
  EXPECT_NE(output_.find("(0 from a zygote, 4 by exec)"), std::string::npos) << output_;
  ASSERT_EQ(warm.cells.size(), 4u);
  ASSERT_EQ(cold.cells.size(), 4u);
  for (std::size_t i = 0; i < warm.cells.size(); ++i) {
    const CellResult& w = warm.cells[i];
    const CellResult& c = find_cell(cold, w.backend, w.workload);
    ASSERT_EQ(w.status, "ok") << w.reason;
    ASSERT_EQ(c.status, "ok") << c.reason;
    ASSERT_TRUE(w.timing && c.timing);
    EXPECT_EQ(w.timing->started_by, "zygote");
    EXPECT_EQ(c.timing->started_by, "exec");
    for (const CellResult* cell : {&w, &c}) {
      const CellTiming& t = *cell->timing;
      EXPECT_GT(t.spawn_ns, 0u);
      EXPECT_GT(t.work_ns, 0u);
      EXPECT_GT(t.probe_ns, 0u);
      EXPECT_EQ(t.context_ns, 0u) << "a host cell has no CUDA context";
      EXPECT_LE(t.spawn_ns + t.library_load_ns + t.backend_init_ns + t.work_ns + t.probe_ns,
                cell->wall_ns)
          << "the parts do not overlap";
    }
    ASSERT_EQ(w.marks.size(), c.marks.size());
    for (std::size_t m = 0; m < w.marks.size(); ++m) {
      EXPECT_EQ(w.marks[m].at.requested, c.marks[m].at.requested) << w.marks[m].label;
      EXPECT_NEAR(static_cast<double>(w.marks[m].at.device_used_delta),
                  static_cast<double>(c.marks[m].at.device_used_delta), 2.0 * MiB)
          << w.backend << " x " << w.workload << " at " << w.marks[m].label;
    }
  }
}

// A cell's exit overlaps the next cell's start (RunOptions::exit_overlap): each cell here takes a
// second to exit after its result is in; the next one starts meanwhile and waits for it to end
// before its first reading. With --no-exit-overlap the next one starts after the reap.
TEST_F(RunnerTest, TheNextCellStartsWhileTheLastExitsAndWaitsForItBeforeItsReadings) {
  const std::string cells =
      "-b host-malloc -w single-large,fragmentation,temp-then-delete --no-host-lane";
  for (const std::string zygote : {"--zygote all", "--no-zygote"}) {
    RunResults overlapped = run(cells + " " + zygote, 0, "MEMREL_INJECT_FAULT=slow-exit:1000");
    ASSERT_EQ(overlapped.cells.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      const CellResult& c = overlapped.cells[i];
      ASSERT_EQ(c.status, "ok") << c.reason;
      ASSERT_TRUE(c.timing);
      EXPECT_GE(c.timing->exit_ns, 900'000'000u) << zygote << " " << c.workload;
      // The last cell has no successor to overlap.
      EXPECT_EQ(c.timing->exit_overlapped, i < 2) << zygote << " " << c.workload;
      if (i > 0) {
        EXPECT_GT(c.timing->previous_exit_wait_ns, 0u) << zygote << " " << c.workload;
      } else {
        EXPECT_EQ(c.timing->previous_exit_wait_ns, 0u) << zygote;
      }
    }
  }
  RunResults serial = run(cells + " --no-exit-overlap", 0, "MEMREL_INJECT_FAULT=slow-exit:300");
  ASSERT_EQ(serial.cells.size(), 3u);
  for (const CellResult& c : serial.cells) {
    ASSERT_TRUE(c.timing);
    EXPECT_FALSE(c.timing->exit_overlapped) << c.workload;
    EXPECT_EQ(c.timing->previous_exit_wait_ns, 0u) << c.workload;
    EXPECT_GE(c.timing->exit_ns, 200'000'000u) << c.workload;
  }
}

TEST_F(RunnerTest, AHangingCellTimesOut) {
  RunResults r =
      run("-b host-malloc -w temp-then-delete --timeout 1", 3, "MEMREL_INJECT_FAULT=hang");
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].status, "timeout");
  EXPECT_LT(r.cells[0].wall_ns, 10'000'000'000u);
}

TEST_F(RunnerTest, BadInputLeavesThePreviousResultsFileIntact) {
  std::string out = dir_.file("keep.json");
  testing::write_text(out, "previous results");
  std::string bad = dir_.file("bad.json");
  testing::write_text(bad,
                      R"({"schema": "memrel.workload/1", "name": "b", "steps": [{"free": "x"}]})");
  auto r = testing::run_command(
      testing::memrel_command("run -b host-malloc -w '" + bad + "' -o '" + out + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("bad.json: steps[0]: free of unknown id 'x'"), std::string::npos)
      << r.output;
  EXPECT_EQ(testing::read_text(out), "previous results");
}

TEST_F(RunnerTest, AnOutOfMemoryStepIsAResultNotAFailure) {
  // 128 TiB: no machine has it, and glibc refuses it at once instead of overcommitting.
  std::string w = dir_.file("oom.json");
  testing::write_text(
      w,
      R"({"schema": "memrel.workload/1", "name": "oom", "steps": [{"alloc": "small", "bytes": 4096}, {"mark": "before"}, {"alloc": "x", "bytes": 140737488355328}, {"mark": "never"}]})");
  RunResults r = run("-b host-malloc -w '" + w + "'", 0);
  ASSERT_EQ(r.cells.size(), 1u);
  const CellResult& c = r.cells[0];
  EXPECT_EQ(c.status, "oom");
  EXPECT_NE(c.reason.find("steps[2]: out of memory allocating 140737488355328 bytes"),
            std::string::npos)
      << c.reason;
  ASSERT_EQ(c.steps.size(), 3u);
  EXPECT_EQ(c.steps[2].outcome, "oom");
  ASSERT_EQ(c.marks.size(), 1u);  // the marks up to the failing step, none after
  EXPECT_EQ(c.marks[0].label, "before");
}

TEST_F(RunnerTest, ProgramWorkloadOnANonFrameworkBackendIsUnavailable) {
  std::string w = dir_.file("prog.json");
  testing::write_text(
      w,
      R"({"schema": "memrel.workload/1", "name": "prog", "steps": [{"program": "linear-stack", "args": {}}]})");
  RunResults r = run("-b host-malloc -w '" + w + "'", 0);
  EXPECT_EQ(r.cells[0].status, "unavailable");
  EXPECT_NE(r.cells[0].reason.find("torch"), std::string::npos);
}

// `memrel run --shard K/N` for every K, joined by `memrel merge`, is the unsharded run: the same
// cells in the same order with the same statuses (ok, oom, unavailable here) and the same
// allocator figures to the byte; the figures the kernel reports (RSS) pass the gate.
TEST_F(RunnerTest, ShardedRunsMergeIntoTheUnshardedRun) {
  std::string oom = dir_.file("oom.json");
  testing::write_text(
      oom,
      R"({"schema": "memrel.workload/1", "name": "oom", "steps": [{"alloc": "x", "bytes": 140737488355328}]})");
  const std::string matrix =
      "-b host-malloc,host-malloc-retain -w temp-then-delete,fragmentation,"
      "torch-seed-000,'" +
      oom + "' --host-capacity 64MiB";
  RunResults whole = run(matrix, 0);
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    std::string out = dir_.file("shard-" + std::to_string(k) + ".json");
    auto r = testing::run_command(testing::memrel_command(
        "run " + matrix + " --shard " + std::to_string(k) + "/3 -o '" + out + "'"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The shard's own cells, counted as it ran them.
    EXPECT_NE(r.output.find(std::to_string(k == 3 ? 2 : 3) + " cells written"), std::string::npos)
        << r.output;
    shards += " '" + out + "'";
    EXPECT_EQ(read_run_file(out).cells.size(), k == 3 ? 2u : 3u) << "8 cells dealt to 3 shards";
  }
  std::string merged_path = dir_.file("merged.json");
  auto r =
      testing::run_command(testing::memrel_command("merge -o '" + merged_path + "' " + shards));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  RunResults merged = read_run_file(merged_path);
  ASSERT_EQ(merged.cells.size(), whole.cells.size());
  std::set<std::string> statuses;
  for (std::size_t i = 0; i < whole.cells.size(); ++i) {
    const CellResult &a = whole.cells[i], &b = merged.cells[i];
    SCOPED_TRACE(a.backend + "/" + a.workload);
    EXPECT_EQ(b.backend, a.backend);
    EXPECT_EQ(b.workload, a.workload);
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.reason, a.reason);
    statuses.insert(a.status);
    ASSERT_EQ(b.marks.size(), a.marks.size());
    for (std::size_t m = 0; m < a.marks.size(); ++m) {
      EXPECT_EQ(b.marks[m].label, a.marks[m].label);
      EXPECT_EQ(b.marks[m].at.requested, a.marks[m].at.requested);
      EXPECT_EQ(b.marks[m].at.allocated, a.marks[m].at.allocated);
      EXPECT_EQ(b.marks[m].at.reserved, a.marks[m].at.reserved);
    }
    EXPECT_EQ(b.metrics.peak_requested, a.metrics.peak_requested);
    EXPECT_EQ(b.metrics.peak_allocated, a.metrics.peak_allocated);
    EXPECT_EQ(b.metrics.peak_reserved, a.metrics.peak_reserved);
  }
  EXPECT_EQ(statuses, (std::set<std::string>{"ok", "oom", "unavailable"}));
  EXPECT_EQ(merged.context["options"], whole.context["options"]);
  auto gate = testing::run_command(testing::memrel_command(
      "compare --no-latency-gate '" + dir_.file("run.json") + "' '" + merged_path + "'"));
  EXPECT_EQ(gate.exit_code, 0) << gate.output;
}

}  // namespace
}  // namespace memrel
