#include "harness/execution/shard.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace memrel {
namespace {

std::vector<std::string> sample_matrix() {
  return cell_matrix({"host-malloc", "host-malloc-retain", "cuda-async", "torch-native"},
                     {"single-large", "fragmentation", "huge"});
}

std::string error_of(const std::string& text) {
  try {
    parse_shard(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Shard, ParsesKOverN) {
  Shard s = parse_shard("3/8");
  EXPECT_EQ(s.index, 3u);
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(shard_text(s), "3/8");
  EXPECT_EQ(shard_text(parse_shard("1/1")), "1/1");
}

TEST(Shard, RefusesAnythingButKOverNWithKFrom1ToN) {
  EXPECT_EQ(error_of("0/4"),
            "--shard '0/4': K must be a whole number from 1 to N (shards are 1/4 "
            "to 4/4)");
  EXPECT_EQ(error_of("5/4"),
            "--shard '5/4': K must be a whole number from 1 to N (shards are 1/4 "
            "to 4/4)");
  EXPECT_EQ(error_of("4"), "--shard '4': expected K/N, e.g. 2/8 (shard 2 of 8)");
  EXPECT_EQ(error_of("1/0"), "--shard '1/0': N must be a whole number of at least 1");
  for (const char* bad : {"", "/", "a/b", "1/b", "-1/4", "+1/4", " 1/4", "1/4 ", "1.0/4", "1/4/2",
                          "99999999999999999999999/4", "1/99999999999999999999999"})
    EXPECT_NE(error_of(bad), "") << "'" << bad << "' was accepted";
}

TEST(Shard, MatrixIsBackendMajorLikeTheRunner) {
  EXPECT_EQ(cell_matrix({"a", "b"}, {"x", "y"}),
            (std::vector<std::string>{"a/x", "a/y", "b/x", "b/y"}));
}

// The documented rule, spelled out on a small matrix: sorted keys dealt out like cards.
TEST(Shard, CellsAreDealtInSortedOrder) {
  std::vector<std::string> matrix = cell_matrix({"b", "a"}, {"y", "x", "z"});
  // sorted: a/x a/y a/z b/x b/y b/z
  EXPECT_EQ(shard_cells(matrix, {1, 2}), (std::set<std::string>{"a/x", "a/z", "b/y"}));
  EXPECT_EQ(shard_cells(matrix, {2, 2}), (std::set<std::string>{"a/y", "b/x", "b/z"}));
  EXPECT_EQ(shard_cells(matrix, {3, 4}), (std::set<std::string>{"a/z"}));
}

TEST(Shard, ShardsPartitionTheMatrixInSizesThatDifferByAtMostOne) {
  const std::vector<std::string> matrix = sample_matrix();
  for (std::size_t n = 1; n <= matrix.size() + 2; ++n) {
    std::set<std::string> all;
    std::size_t total = 0, smallest = matrix.size(), largest = 0;
    for (std::size_t k = 1; k <= n; ++k) {
      std::set<std::string> cells = shard_cells(matrix, {k, n});
      total += cells.size();
      smallest = std::min(smallest, cells.size());
      largest = std::max(largest, cells.size());
      all.insert(cells.begin(), cells.end());
    }
    EXPECT_EQ(total, matrix.size()) << "N=" << n << ": a cell in two shards";
    EXPECT_EQ(all, std::set<std::string>(matrix.begin(), matrix.end())) << "N=" << n;
    EXPECT_LE(largest - smallest, 1u) << "N=" << n;
  }
}

TEST(Shard, TheOrderOfBackendsAndWorkloadsMovesNoCell) {
  const std::vector<std::string> matrix = sample_matrix();
  const auto before = shard_assignment(matrix, 5);
  std::mt19937 random(14);
  for (int i = 0; i < 20; ++i) {
    std::vector<std::string> shuffled = matrix;
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    EXPECT_EQ(shard_assignment(shuffled, 5), before);
  }
  EXPECT_EQ(
      shard_cells(cell_matrix({"torch-native", "cuda-async", "host-malloc-retain", "host-malloc"},
                              {"huge", "single-large", "fragmentation"}),
                  {2, 5}),
      shard_cells(matrix, {2, 5}));
}

TEST(Shard, MoreShardsThanCellsLeavesTheLastOnesEmpty) {
  std::vector<std::string> matrix = cell_matrix({"a"}, {"x", "y"});
  EXPECT_EQ(shard_cells(matrix, {2, 3}).size(), 1u);
  EXPECT_TRUE(shard_cells(matrix, {3, 3}).empty());
}

TEST(Shard, ACellTwiceIsRefused) {
  try {
    shard_cells(cell_matrix({"host-malloc", "host-malloc"}, {"huge"}), {1, 2});
    FAIL() << "a matrix with a cell twice was sharded";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cell 'host-malloc/huge' appears twice"),
              std::string::npos)
        << e.what();
  }
}

TEST(Shard, RecordNamesTheRuleAndTheWholeMatrix) {
  nlohmann::json record = shard_record(sample_matrix(), {2, 3});
  EXPECT_EQ(record["index"], 2);
  EXPECT_EQ(record["count"], 3);
  EXPECT_EQ(record["rule"], "sorted-round-robin/1");
  EXPECT_EQ(record["matrix"], nlohmann::json(sample_matrix()));
}

}  // namespace
}  // namespace memrel
