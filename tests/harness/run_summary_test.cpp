// What `memrel run` prints: a line only for cells worth reading, unavailable cells once per reason.
#include "harness/execution/run_summary.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace memrel {
namespace {

CellResult cell(const std::string& backend, const std::string& workload, const std::string& status,
                const std::string& reason = "", double seconds = 0.5) {
  CellResult c;
  c.backend = backend;
  c.workload = workload;
  c.status = status;
  c.reason = reason;
  c.wall_ns = static_cast<std::uint64_t>(seconds * 1e9);
  return c;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RunSummaryTest, OnlyCellsThatRanAndFailedOrWereSlowAreWorthALine) {
  EXPECT_FALSE(cell_worth_a_line(cell("a", "w", "ok")));
  EXPECT_FALSE(cell_worth_a_line(cell("a", "w", "unavailable", "no CUDA device")));
  EXPECT_TRUE(cell_worth_a_line(cell("a", "w", "oom", "out of memory")));
  EXPECT_TRUE(cell_worth_a_line(cell("a", "w", "crashed", "signal 6")));
  EXPECT_TRUE(cell_worth_a_line(cell("a", "w", "ok", "", kSlowCellSeconds + 1)));
  std::string line = cell_line(cell("rmm-arena", "huge", "oom", "steps[0]: out of memory"), 3, 9);
  EXPECT_NE(line.find("[3/9]"), std::string::npos) << line;
  EXPECT_NE(line.find("rmm-arena"), std::string::npos) << line;
  EXPECT_NE(line.find("steps[0]: out of memory"), std::string::npos) << line;
}

TEST(RunSummaryTest, UnavailableCellsAreGroupedByReasonLargestFirst) {
  std::vector<CellResult> cells;
  for (const char* b : {"cuda-malloc", "cuda-async", "torch-native"})
    for (const char* w : {"w1", "w2", "w3"}) cells.push_back(cell(b, w, "unavailable", "no GPU"));
  cells.push_back(cell("host-malloc", "torch-seed", "unavailable", "runs no framework programs"));
  cells.push_back(cell("host-malloc", "w1", "ok"));
  auto groups = group_unavailable(cells);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].cells, 9u);
  EXPECT_EQ(groups[0].reason, "no GPU");
  EXPECT_EQ(groups[0].backends,
            (std::vector<std::string>{"cuda-malloc", "cuda-async", "torch-native"}));
  EXPECT_EQ(groups[0].workloads.size(), 3u);
  EXPECT_EQ(groups[1].cells, 1u);
  EXPECT_EQ(format_group(groups[0]),
            "9 cells unavailable (cuda-malloc, cuda-async, torch-native x 3 workloads): no GPU");
  EXPECT_EQ(format_group(groups[1]),
            "1 cell unavailable (host-malloc x torch-seed): runs no framework programs");
  std::string summary = run_summary(cells);
  EXPECT_EQ(count(summary, "no GPU"), 1u) << summary;  // said once, not nine times
  EXPECT_NE(summary.find("11 cells: 1 ok, 10 unavailable; 3 backends ran none (above)"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("cuda-malloc "), std::string::npos)
      << "no row for a backend that ran nothing";
  EXPECT_NE(summary.find("\nhost-malloc "), std::string::npos) << summary;
}

}  // namespace
}  // namespace memrel

namespace memrel {
namespace {

// Issue 25's figures: the split summed over the cells that ran, and the median device cell's
// overhead (wall - work) against its CUDA context.
TEST(RunSummaryTest, TheTimeSplitSumsTheCellsAndComparesTheMedianOverheadWithTheContext) {
  std::vector<CellResult> cells;
  for (int i = 0; i < 3; ++i) {
    CellResult c = cell("cuda-malloc", "w" + std::to_string(i), "ok", "", 1.0);
    c.timing = CellTiming{"zygote", 10'000'000, 0, 200'000'000, 1'000'000, 700'000'000, 50'000'000};
    cells.push_back(c);
  }
  CellResult host = cell("host-malloc", "w", "ok", "", 0.5);
  host.timing = CellTiming{"exec", 10'000'000, 0, 0, 0, 400'000'000, 10'000'000};
  cells.push_back(host);
  cells.push_back(cell("torch-native", "w", "unavailable", "no CUDA device"));  // no timing
  const std::string split = time_split(cells);
  EXPECT_NE(split.find("time split of 4 cells that ran (3 from a zygote, 1 by exec): spawn "
                       "0.04 s, library load 0.00 s, CUDA context 0.60 s, backend init 0.00 s, "
                       "work 2.50 s, probes 0.16 s, rest 0.20 s; wall 3.50 s"),
            std::string::npos)
      << split;
  // Each device cell: 1.0 s wall - 0.7 s work = 0.3 s against a 0.2 s context.
  EXPECT_NE(split.find("per device cell (median of 3 ok): overhead (wall - work, less an exit "
                       "beside the next cell) 0.300 s, CUDA context 0.200 s, overhead / context "
                       "1.50"),
            std::string::npos)
      << split;
  EXPECT_EQ(split.find("exits"), std::string::npos) << "no exit seen, no word of it";
  EXPECT_NE(run_summary(cells).find(split), std::string::npos) << "the summary ends with it";
  // The same cells, each taking 0.2 s of its 1.0 s to exit once its result is in: the first two
  // beside the next cell's start, which waited 0.05 s for them; the last one not.
  for (int i = 0; i < 3; ++i) {
    cells[static_cast<std::size_t>(i)].timing->exit_ns = 200'000'000;
    cells[static_cast<std::size_t>(i)].timing->exit_overlapped = i < 2;
    cells[static_cast<std::size_t>(i)].timing->previous_exit_wait_ns = i > 0 ? 50'000'000 : 0;
  }
  const std::string overlapped = time_split(cells);
  EXPECT_NE(overlapped.find("rest 0.20 s (exits 0.60 s, 0.40 s of them beside the next cell's "
                            "start, which waited 0.10 s for them); wall 3.50 s"),
            std::string::npos)
      << overlapped;
  // Two cells held their slot 0.8 s (0.1 s over the work), one 1.0 s: the median is 0.1 s.
  EXPECT_NE(overlapped.find("less an exit beside the next cell) 0.100 s, CUDA context 0.200 s, "
                            "overhead / context 0.50"),
            std::string::npos)
      << overlapped;
  EXPECT_EQ(time_split({cell("a", "w", "ok")}), "") << "results of older builds have no timing";
}

}  // namespace
}  // namespace memrel
