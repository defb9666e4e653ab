// The CUDA backends against the H200 figures in docs/design.md. Label gpu:
// without a device every test is skipped with the reason.
#include <gtest/gtest.h>

#include "allocators/backend_table.hpp"
#include "harness/results/results.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

constexpr std::int64_t MiB = 1 << 20;
// The driver maps device memory in 2 MiB pages: driver-observed figures may differ from the
// allocator's by up to one page.
constexpr std::int64_t kDriverGranule = 2 * MiB;

class CudaBackends : public ::testing::Test {
 protected:
  void SetUp() override {
    Availability a = device_backend_availability();
    if (!a.available) GTEST_SKIP() << "no GPU here: " << a.reason;
  }

  CellResult cell(const std::string& backend, const std::string& workload) {
    testing::CellThroughCli r = testing::cell_through_cli(dir_, backend, workload);
    EXPECT_EQ(r.command.exit_code, 0) << r.command.output;
    EXPECT_EQ(r.cell.status, "ok") << r.cell.reason;
    return r.cell;
  }

  static const Snapshot& at(const CellResult& c, const std::string& label) {
    return testing::mark_at(c, label);
  }

  testing::TempDir dir_;
};

TEST_F(CudaBackends, CudaMallocReturnsAll360MiBOnFree) {
  CellResult c = cell("cuda-malloc", "single-large");
  EXPECT_EQ(at(c, "after-alloc").device_used_delta, 360 * MiB);
  EXPECT_EQ(*at(c, "after-alloc").reserved, 360u * MiB);
  EXPECT_EQ(at(c, "after-release-only").device_used_delta, 360 * MiB);
  EXPECT_EQ(at(c, "after-free-only").device_used_delta, 0);
  EXPECT_EQ(at(c, "after-free-release").device_used_delta, 0);
  ASSERT_TRUE(c.setup.process_used_after_context.has_value()) << c.setup.process_probe_note;
  EXPECT_GT(*c.setup.process_used_after_context, 0u);
}

TEST_F(CudaBackends, CudaAsyncRounds360MiBTo384AndReturnsItAtSync) {
  CellResult c = cell("cuda-async", "single-large");
  EXPECT_EQ(*at(c, "after-alloc").reserved, 384u * MiB);
  EXPECT_EQ(*at(c, "after-alloc").allocated, 360u * MiB);
  EXPECT_EQ(at(c, "after-alloc").device_used_delta, 384 * MiB);
  EXPECT_EQ(*at(c, "after-free-only").reserved, 0u);
  EXPECT_EQ(at(c, "after-free-only").device_used_delta, 0);
}

TEST_F(CudaBackends, CudaAsyncRetainHoldsUntilTrimmed) {
  CellResult c = cell("cuda-async-retain", "single-large");
  EXPECT_EQ(*at(c, "after-alloc").reserved, 384u * MiB);
  EXPECT_EQ(*at(c, "after-free-only").reserved, 384u * MiB);
  EXPECT_EQ(*at(c, "after-free-only").allocated, 0u);
  EXPECT_EQ(at(c, "after-free-only").device_used_delta, 384 * MiB);
  EXPECT_EQ(*at(c, "after-free-release").reserved, 0u);
  EXPECT_EQ(at(c, "after-free-release").device_used_delta, 0);
  // Trimming while the tensor lives returns none of the 24 MiB of slack: it sits in a chunk that
  // the live allocation still uses. After the free, the trim returns every byte.
  ASSERT_EQ(c.metrics.releases.size(), 2u);
  EXPECT_EQ(c.metrics.releases[0].releasable, 24u * MiB);
  EXPECT_EQ(c.metrics.releases[0].returned, 0);
  EXPECT_EQ(c.metrics.releases[1].releasable, 384u * MiB);
  EXPECT_EQ(c.metrics.releases[1].returned, 384 * MiB);
  EXPECT_DOUBLE_EQ(*c.metrics.releases[1].effectiveness, 1.0);
}

TEST_F(CudaBackends, PairedIsTwiceSingleForCudaMalloc) {
  CellResult single = cell("cuda-malloc", "single-large");
  CellResult paired = cell("cuda-malloc", "paired-large");
  EXPECT_EQ(*at(paired, "after-alloc").reserved, 2 * *at(single, "after-alloc").reserved);
  EXPECT_EQ(at(paired, "after-alloc").device_used_delta,
            2 * at(single, "after-alloc").device_used_delta);
  EXPECT_EQ(at(paired, "after-free-release").device_used_delta, 0);
}

// A pool reserves in 32 MiB chunks and packs the second tensor into the first one's last chunk:
// two 360 MiB tensors reserve 736 MiB (23 chunks), not 2 x 384. Allocated stays exactly twice.
TEST_F(CudaBackends, PairedPoolsShareTheirLastChunk) {
  for (const std::string backend : {"cuda-async", "cuda-async-retain"}) {
    CellResult single = cell(backend, "single-large");
    CellResult paired = cell(backend, "paired-large");
    EXPECT_EQ(*at(paired, "after-alloc").allocated, 2 * *at(single, "after-alloc").allocated)
        << backend;
    EXPECT_EQ(*at(paired, "after-alloc").reserved, 736u * MiB) << backend;
    EXPECT_EQ(at(paired, "after-alloc").device_used_delta, 736 * MiB) << backend;
    EXPECT_EQ(at(paired, "after-free-release").device_used_delta, 0) << backend;
  }
}

TEST_F(CudaBackends, HugeFourGiBComesBackAfterFreeAndRelease) {
  for (const std::string backend : {"cuda-malloc", "cuda-async", "cuda-async-retain"}) {
    CellResult c = cell(backend, "huge");
    EXPECT_GE(at(c, "after-alloc").device_used_delta, 4096 * MiB) << backend;
    EXPECT_LE(at(c, "after-alloc").device_used_delta, 4096 * MiB + 32 * MiB) << backend;
    EXPECT_NEAR(at(c, "after-free-release").device_used_delta, 0, kDriverGranule) << backend;
  }
}

TEST_F(CudaBackends, NoLeakAcrossOneHundredTempThenDelete) {
  for (const std::string backend : {"cuda-malloc", "cuda-async", "cuda-async-retain"}) {
    CellResult c = cell(backend, "temp-then-delete-x100");
    EXPECT_EQ(*at(c, "after-100-repetitions").reserved, *at(c, "after-first-alloc").reserved)
        << backend;
    EXPECT_NEAR(at(c, "after-100-repetitions").device_used_delta,
                at(c, "after-first-alloc").device_used_delta, kDriverGranule)
        << backend;
    EXPECT_NEAR(at(c, "after-free-release").device_used_delta, 0, kDriverGranule) << backend;
  }
}

TEST_F(CudaBackends, FragmentationLargeBlockSucceedsAndAllReturns) {
  for (const std::string backend : {"cuda-malloc", "cuda-async", "cuda-async-retain"}) {
    CellResult c = cell(backend, "fragmentation");
    EXPECT_GT(at(c, "after-large-alloc").requested, 0u) << backend;
    EXPECT_NEAR(at(c, "after-free-release").device_used_delta, 0, kDriverGranule) << backend;
  }
}

// memrel run --gpus all (docs/run-journal.md): each cell pinned to one GPU by its UUID, and the
// bytes of a run without --gpus (allocator bytes exact, the driver's within a page).
TEST_F(CudaBackends, GpusAllPinsEachCellByUuidAndMeasuresTheBytesOfAPlainRun) {
  auto run = [&](const std::string& name, const std::string& extra) {
    std::string out = dir_.file(name);
    auto r = testing::run_command(testing::memrel_command(
        "run -b cuda-malloc,cuda-async -w single-large,temp-then-delete -o '" + out + "' " +
        extra));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_run_file(out);
  };
  RunResults plain = run("plain.json", "");
  RunResults pinned = run("pinned.json", "--gpus all");
  ASSERT_EQ(plain.cells.size(), pinned.cells.size());
  for (std::size_t i = 0; i < plain.cells.size(); ++i) {
    const CellResult &a = plain.cells[i], &b = pinned.cells[i];
    SCOPED_TRACE(b.backend + " x " + b.workload);
    EXPECT_FALSE(a.gpu.has_value());
    ASSERT_TRUE(b.gpu.has_value());
    ASSERT_TRUE(b.gpu->uuid.has_value());
    EXPECT_EQ(b.gpu->uuid->rfind("GPU-", 0), 0u) << *b.gpu->uuid;
    EXPECT_EQ(b.setup.environment.at("CUDA_VISIBLE_DEVICES"), *b.gpu->uuid);
    ASSERT_EQ(a.status, "ok") << a.reason;
    ASSERT_EQ(b.status, "ok") << b.reason;
    ASSERT_EQ(a.marks.size(), b.marks.size());
    for (std::size_t m = 0; m < a.marks.size(); ++m) {
      EXPECT_EQ(a.marks[m].at.allocated, b.marks[m].at.allocated) << a.marks[m].label;
      EXPECT_EQ(a.marks[m].at.reserved, b.marks[m].at.reserved) << a.marks[m].label;
      EXPECT_NEAR(a.marks[m].at.device_used_delta, b.marks[m].at.device_used_delta, kDriverGranule)
          << a.marks[m].label;
    }
  }
}

// Without --gpus a host cell runs beside the device cell (RunOptions::host_lane): every cell
// waits until two cells are there at once, which one cell at a time never gives (--no-host-lane
// times out). Without the fault, the bytes are those of a serial run.
TEST_F(CudaBackends, HostCellsRunBesideTheDeviceCellWithTheBytesOfASerialRun) {
  auto run = [&](const std::string& name, const std::string& extra, const std::string& env,
                 int expected_exit) {
    std::string out = dir_.file(name);
    auto r = testing::run_command(
        env + " " +
        testing::memrel_command("run -b cuda-malloc,host-malloc -w single-large "
                                "-o '" +
                                out + "' " + extra));
    EXPECT_EQ(r.exit_code, expected_exit) << r.output;
    return read_run_file(out);
  };
  std::string meet = dir_.file("meet"), alone = dir_.file("alone");
  ASSERT_EQ(testing::run_command("mkdir '" + meet + "' '" + alone + "'").exit_code, 0);
  RunResults beside =
      run("beside.json", "--timeout 60", "MEMREL_INJECT_FAULT=rendezvous:" + meet + ":2", 0);
  ASSERT_EQ(beside.cells.size(), 2u);
  for (const auto& c : beside.cells) EXPECT_EQ(c.status, "ok") << c.backend << ": " << c.reason;
  RunResults serial = run("serial.json", "--timeout 5 --no-host-lane",
                          "MEMREL_INJECT_FAULT=rendezvous:" + alone + ":2", 3);
  ASSERT_EQ(serial.cells.size(), 2u);
  EXPECT_EQ(serial.cells[0].status, "timeout") << "one cell at a time met another";
  // The bytes without the fault injection, whose own heap use a host cell's figures would count.
  RunResults lane = run("lane.json", "", "", 0);
  RunResults plain = run("plain.json", "--no-host-lane", "", 0);
  ASSERT_EQ(lane.cells.size(), plain.cells.size());
  for (std::size_t i = 0; i < plain.cells.size(); ++i) {
    const CellResult &a = plain.cells[i], &b = lane.cells[i];
    SCOPED_TRACE(b.backend + " x " + b.workload);
    ASSERT_EQ(a.status, "ok") << a.reason;
    ASSERT_EQ(a.marks.size(), b.marks.size());
    for (std::size_t m = 0; m < a.marks.size(); ++m) {
      EXPECT_EQ(a.marks[m].at.requested, b.marks[m].at.requested) << a.marks[m].label;
      EXPECT_EQ(a.marks[m].at.allocated, b.marks[m].at.allocated) << a.marks[m].label;
      EXPECT_EQ(a.marks[m].at.reserved, b.marks[m].at.reserved) << a.marks[m].label;
      EXPECT_NEAR(a.marks[m].at.device_used_delta, b.marks[m].at.device_used_delta, kDriverGranule)
          << a.marks[m].label;
    }
  }
}

}  // namespace
}  // namespace memrel
