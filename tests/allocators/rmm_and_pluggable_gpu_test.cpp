// RMM's resources and the in-tree CUDA pluggable example on the GPU, through the real binary
// (one `memrel cell` each). What they must show is what their rows in the backend table say
// about release. Label gpu: skipped with the reason without a device or without RMM.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "allocators/backend_table.hpp"
#include "harness/results/results.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

constexpr std::int64_t MiB = 1 << 20;
constexpr std::int64_t kTensor = 360 * MiB;
// The driver maps device memory in 2 MiB pages: driver-observed figures may differ from the
// allocator's by up to one page.
constexpr std::int64_t kGranule = 2 * MiB;

std::int64_t i64(std::optional<std::uint64_t> v) { return static_cast<std::int64_t>(v.value()); }

class DeviceBackend : public ::testing::Test {
 protected:
  CellResult ok_cell(const std::string& backend, const std::string& workload) {
    testing::CellThroughCli r = testing::cell_through_cli(dir_, backend, workload);
    EXPECT_EQ(r.command.exit_code, 0) << r.command.output;
    EXPECT_EQ(r.cell.status, "ok") << backend << ": " << r.cell.reason;
    return r.cell;
  }
  static const Snapshot& at(const CellResult& c, const std::string& label) {
    return testing::mark_at(c, label);
  }
  testing::TempDir dir_;
};

// Availability as memrel itself sees it (`memrel list --json`): a pluggable backend's library is
// looked for next to the memrel executable, which this test process is not.
Availability listed_availability(const std::string& backend) {
  auto r = testing::run_command(testing::memrel_command("list --json"));
  if (r.exit_code != 0) return {false, "memrel list failed: " + r.output};
  const nlohmann::json listing = nlohmann::json::parse(r.output);
  for (const auto& b : listing["backends"]) {
    if (b["name"] == backend) return {b["available"].get<bool>(), b.value("reason", "")};
  }
  return {false, "memrel list does not list it"};
}

#define SKIP_IF_UNAVAILABLE(backend)                                               \
  do {                                                                             \
    Availability a = listed_availability(backend);                                 \
    if (!a.available) GTEST_SKIP() << backend << " cannot run here: " << a.reason; \
  } while (0)

// The pool keeps what it took from the device while it lives: freeing and releasing the tensor
// leaves reserved and the device's figure where they were.
TEST_F(DeviceBackend, RmmPoolKeepsTheTensorsMemoryAfterFreeAndRelease) {
  SKIP_IF_UNAVAILABLE("rmm-pool");
  CellResult c = ok_cell("rmm-pool", "single-large");
  EXPECT_EQ(i64(at(c, "after-alloc").allocated), kTensor);
  EXPECT_GE(i64(at(c, "after-alloc").reserved), kTensor);
  EXPECT_EQ(i64(at(c, "after-free-release").allocated), 0);
  EXPECT_EQ(i64(at(c, "after-free-release").reserved), i64(at(c, "after-alloc").reserved));
  EXPECT_GE(at(c, "after-free-release").device_used_delta, kTensor - kGranule);
}

TEST_F(DeviceBackend, RmmArenaReservesItsArenaBeforeTheFirstRequest) {
  SKIP_IF_UNAVAILABLE("rmm-arena");
  CellResult c = ok_cell("rmm-arena", "single-large");
  EXPECT_EQ(i64(at(c, "after-alloc").allocated), kTensor);
  EXPECT_GT(i64(at(c, "after-alloc").reserved), kTensor);
  EXPECT_EQ(i64(at(c, "after-free-release").reserved), i64(at(c, "after-alloc").reserved));
  // A whole GiB, whatever the driver held before the cell: two machines of one kind reserve the
  // same bytes (rmm_resources.cpp, make_rmm_arena).
  EXPECT_EQ(i64(at(c, "after-alloc").reserved) % (std::int64_t{1} << 30), 0)
      << i64(at(c, "after-alloc").reserved);
}

TEST_F(DeviceBackend, RmmBinningServesALargeTensorFromItsPoolAndKeepsIt) {
  SKIP_IF_UNAVAILABLE("rmm-binning");
  CellResult c = ok_cell("rmm-binning", "single-large");
  EXPECT_EQ(i64(at(c, "after-alloc").allocated), kTensor);
  EXPECT_GE(i64(at(c, "after-alloc").reserved), kTensor);
  EXPECT_EQ(i64(at(c, "after-free-release").reserved), i64(at(c, "after-alloc").reserved));
}

// The driver's pool under RMM: release trims it, and the device gets everything back.
TEST_F(DeviceBackend, RmmAsyncGivesEverythingBackAtRelease) {
  SKIP_IF_UNAVAILABLE("rmm-async");
  CellResult c = ok_cell("rmm-async", "single-large");
  EXPECT_EQ(i64(at(c, "after-alloc").allocated), kTensor);
  EXPECT_GE(i64(at(c, "after-alloc").reserved), kTensor);
  EXPECT_EQ(i64(at(c, "after-free-release").reserved), 0);
  EXPECT_LE(at(c, "after-free-release").device_used_delta, kGranule);
}

// The CUDA example caches freed blocks until release, then cudaFrees them.
TEST_F(DeviceBackend, PluggableCudaExampleCachesUntilRelease) {
  SKIP_IF_UNAVAILABLE("pluggable-cuda-example");
  CellResult c = ok_cell("pluggable-cuda-example", "single-large");
  EXPECT_EQ(i64(at(c, "after-alloc").allocated), kTensor);
  EXPECT_EQ(i64(at(c, "after-free-only").reserved), kTensor);
  EXPECT_GE(at(c, "after-free-only").device_used_delta, kTensor - kGranule);
  EXPECT_EQ(i64(at(c, "after-free-release").reserved), 0);
  EXPECT_LE(at(c, "after-free-release").device_used_delta, kGranule);
}

}  // namespace
}  // namespace memrel
