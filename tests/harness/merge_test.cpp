// memrel merge's logic on a real run (tests/data/host-run.json) cut into shards by the rule.
#include "harness/execution/merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "harness/execution/shard.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

const std::string kSample = std::string(MEMREL_TEST_DATA) + "/host-run.json";

// 2026-12-03THH:MM:00Z
std::string at_hour(std::size_t hour, const char* minutes) {
  char text[32];
  std::snprintf(text, sizeof text, "2026-12-03T%02zu:%s:00Z", hour, minutes);
  return text;
}

std::string key_of(const nlohmann::json& cell) {
  return cell_key(cell["backend"].get<std::string>(), cell["workload"].get<std::string>());
}

class MergeTest : public ::testing::Test {
 protected:
  // The sample as the N shards of `memrel run --shard K/N` would have written it: shard K's
  // cells, a context.shard record, and each shard on its own host and in its own minute.
  // `change(K, document)` edits shard K's document before it is written.
  std::vector<std::string> write_shards(
      std::size_t n, const std::function<void(std::size_t, nlohmann::json&)>& change = {}) {
    const nlohmann::json original = nlohmann::json::parse(testing::read_text(kSample));
    std::vector<std::string> matrix;
    for (const auto& c : original["cells"]) matrix.push_back(key_of(c));
    std::vector<std::string> paths;
    for (std::size_t k = 1; k <= n; ++k) {
      nlohmann::json doc = original;
      const std::set<std::string> mine = shard_cells(matrix, {k, n});
      doc["cells"] = nlohmann::json::array();
      for (const auto& c : original["cells"]) {
        if (mine.count(key_of(c))) doc["cells"].push_back(c);
      }
      doc["context"]["shard"] = shard_record(matrix, {k, n});
      doc["context"]["host"] = "node" + std::to_string(k);
      doc["context"]["gpus"] = {{{"name", "NVIDIA H200"}, {"uuid", "GPU-" + std::to_string(k)}}};
      doc["context"]["started"] = at_hour(k, "00");
      doc["context"]["finished"] = at_hour(k, "30");
      if (change) change(k, doc);
      paths.push_back(
          dir_.file("shard-" + std::to_string(k) + "-of-" + std::to_string(n) + ".json"));
      testing::write_text(paths.back(), doc.dump());
    }
    return paths;
  }

  std::string error_of(const std::vector<std::string>& paths) {
    try {
      merge_shard_files(paths);
    } catch (const ResultsError& e) {
      return e.what();
    }
    return "";
  }

  testing::TempDir dir_;
};

TEST_F(MergeTest, MergedShardsAreTheUnshardedRunCellForCellInItsOrder) {
  const nlohmann::json original = nlohmann::json::parse(testing::read_text(kSample));
  const std::size_t cells = original["cells"].size();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, cells, cells + 2}) {
    std::vector<std::string> paths = write_shards(n);
    std::reverse(paths.begin(), paths.end());  // the order of the files does not matter
    nlohmann::json merged = to_json(merge_shard_files(paths));
    EXPECT_EQ(merged["cells"], original["cells"]) << "N=" << n;
    ASSERT_EQ(merged["context"]["merged_from"].size(), n);
    for (std::size_t k = 1; k <= n; ++k) {
      const nlohmann::json& from = merged["context"]["merged_from"][k - 1];
      EXPECT_EQ(from["shard"], std::to_string(k) + "/" + std::to_string(n));
      EXPECT_EQ(from["host"], "node" + std::to_string(k));
      EXPECT_EQ(from["file"], paths[n - k]);
      EXPECT_EQ(from["gpus"][0]["uuid"], "GPU-" + std::to_string(k));
      EXPECT_EQ(from["cells"], read_run_file(paths[n - k]).cells.size());
    }
    // The context is the first shard's, spanning all of them, and says nothing of one shard.
    nlohmann::json context = merged["context"];
    EXPECT_FALSE(context.contains("shard"));
    EXPECT_EQ(context["started"], at_hour(1, "00"));
    EXPECT_EQ(context["finished"], at_hour(n, "30"));
    EXPECT_EQ(context["host"], "node1");
    nlohmann::json expected = original["context"];
    for (const char* changed : {"started", "finished", "host", "gpus", "merged_from"}) {
      context.erase(changed);
      expected.erase(changed);
    }
    EXPECT_EQ(context, expected) << "N=" << n;
  }
}

TEST_F(MergeTest, AShardGivenTwiceIsAnOverlapNamingBothFiles) {
  std::vector<std::string> paths = write_shards(3);
  const std::string copy = dir_.file("copy-of-2.json");
  testing::write_text(copy, testing::read_text(paths[1]));
  EXPECT_EQ(error_of({paths[0], paths[1], copy, paths[2]}),
            copy + ": shard 2/3 again (" + paths[1] + " has it too): overlapping shards");
  EXPECT_NE(error_of({paths[0], paths[1], paths[1], paths[2]}), "");
}

TEST_F(MergeTest, AMissingShardIsAGap) {
  std::vector<std::string> paths = write_shards(4);
  EXPECT_EQ(error_of({paths[0], paths[1]}), "a gap: shards 3/4, 4/4 missing; the 2 files given (" +
                                                paths[0] + ", ...) hold no other shard");
  EXPECT_EQ(error_of({paths[3]}), "a gap: shards 1/4, 2/4, 3/4 missing; the 1 file given (" +
                                      paths[3] + ") holds no other shard");
}

TEST_F(MergeTest, MixedMemrelVersionsAreRefusedNamingTheFile) {
  std::vector<std::string> paths = write_shards(3, [](std::size_t k, nlohmann::json& doc) {
    if (k == 3) doc["context"]["memrel_version"] = "9.9.9";
  });
  const std::string error = error_of(paths);
  EXPECT_EQ(error.rfind(paths[2] + ": mixed memrel versions: memrel_version \"9.9.9\", but " +
                            paths[0] + " has ",
                        0),
            0u)
      << error;
  paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    if (k == 2) doc["context"]["git_commit"] = "0123456789abcdef0123456789abcdef01234567";
  });
  EXPECT_NE(error_of(paths).find(paths[1] + ": mixed memrel versions: git_commit"),
            std::string::npos)
      << error_of(paths);
}

TEST_F(MergeTest, ShardsOfAnotherSplitMatrixOptionsOrGpuAreRefused) {
  std::vector<std::string> three = write_shards(3);
  std::vector<std::string> two = write_shards(2);
  EXPECT_EQ(error_of({three[0], two[1]}),
            two[1] + ": shard 2/2, but " + three[0] + " is a shard of 3");

  std::vector<std::string> paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    // One cell in place of another: the run's size (a matrix of another size is refused as
    // not the run's, below).
    if (k == 2) doc["context"]["shard"]["matrix"].back() = "host-malloc/extra";
  });
  EXPECT_EQ(error_of(paths),
            paths[1] + ": another matrix: cell 'host-malloc/extra' is not in " + paths[0] + "'s");
  // Both files' matrix one cell longer than the run's backends times its workloads.
  paths = write_shards(2, [](std::size_t, nlohmann::json& doc) {
    doc["context"]["shard"]["matrix"].push_back("host-malloc/extra");
  });
  EXPECT_NE(error_of(paths).find(paths[0] + ": context.shard.matrix: "), std::string::npos)
      << error_of(paths);
  EXPECT_NE(error_of(paths).find(" cells, but options name "), std::string::npos)
      << error_of(paths);

  paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    if (k == 2) doc["context"]["options"]["host_capacity_bytes"] = 1;
  });
  EXPECT_EQ(error_of(paths), paths[1] + ": other run options: host_capacity_bytes 1, but " +
                                 paths[0] + " has 1073741824");

  paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    doc["context"]["gpu"] = k == 1 ? "NVIDIA H200" : "NVIDIA A100-SXM4-80GB";
  });
  EXPECT_EQ(error_of(paths), paths[1] + ": GPU \"NVIDIA A100-SXM4-80GB\", but " + paths[0] +
                                 " ran on \"NVIDIA H200\": a merged run must come from one GPU "
                                 "model");
}

TEST_F(MergeTest, AFileThatIsNotAShardIsRefused) {
  std::vector<std::string> paths = write_shards(2);
  EXPECT_EQ(error_of({paths[0], kSample}),
            kSample +
                ": no context.shard: not the results of a shard (memrel run --shard K/N "
                "writes one)");
  paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    if (k == 2) doc["context"]["shard"]["rule"] = "hash/2";
  });
  EXPECT_EQ(error_of(paths), paths[1] +
                                 ": context.shard.rule: \"hash/2\", but this memrel shards by "
                                 "\"sorted-round-robin/1\"");
  paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    if (k == 1) doc["context"]["shard"]["index"] = 3;
  });
  EXPECT_EQ(error_of(paths), paths[0] + ": context.shard: shard 3/2 does not exist");
  const std::string empty = dir_.file("empty.json");
  testing::write_text(empty, "");
  EXPECT_EQ(error_of({empty}), empty + ": empty file");
}

TEST_F(MergeTest, AShardMustHoldExactlyItsCells) {
  const nlohmann::json original = nlohmann::json::parse(testing::read_text(kSample));
  // shard 1 of 2 lacks one of its cells
  std::vector<std::string> paths = write_shards(2, [](std::size_t k, nlohmann::json& doc) {
    if (k == 1) doc["cells"].erase(doc["cells"].size() - 1);
  });
  EXPECT_NE(error_of(paths).find(paths[0] + ": shard 1/2 lacks cell '"), std::string::npos)
      << error_of(paths);
  // shard 2 of 2 also holds a cell of shard 1
  nlohmann::json of_shard_1;
  std::vector<std::string> matrix;
  for (const auto& c : original["cells"]) matrix.push_back(key_of(c));
  for (const auto& c : original["cells"])
    if (shard_assignment(matrix, 2).at(key_of(c)) == 1) of_shard_1 = c;
  paths = write_shards(2, [&](std::size_t k, nlohmann::json& doc) {
    if (k == 2) doc["cells"].push_back(of_shard_1);
  });
  EXPECT_EQ(error_of(paths), paths[1] + ": cell '" + key_of(of_shard_1) +
                                 "' belongs to shard 1/2, not to this file's 2/2");
  paths = write_shards(
      1, [&](std::size_t, nlohmann::json& doc) { doc["cells"].push_back(original["cells"][0]); });
  EXPECT_EQ(error_of(paths),
            paths[0] + ": cell '" + key_of(original["cells"][0]) + "' appears twice");
}

}  // namespace
}  // namespace memrel
