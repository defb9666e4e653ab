#include "harness/cli_support.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "allocators/registry.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

TEST(CliSupport, ByteSizesWithUnits) {
  EXPECT_EQ(parse_byte_size("4096", "--x"), 4096u);
  EXPECT_EQ(parse_byte_size("360MiB", "--x"), 377487360u);
  EXPECT_EQ(parse_byte_size("1GiB", "--x"), 1073741824u);
  EXPECT_EQ(parse_byte_size("1.5KiB", "--x"), 1536u);
  for (const char* bad : {"", "-1", "0", "abc", "12XB", "1e20GiB"}) {
    EXPECT_THROW(parse_byte_size(bad, "--x"), std::invalid_argument) << bad;
  }
}

TEST(CliSupport, UnknownWorkloadListsTheKnownOnes) {
  try {
    resolve_workloads({"no-such-workload"},
                      std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("unknown workload 'no-such-workload'"), std::string::npos);
    EXPECT_NE(what.find("single-large"), std::string::npos);
  }
}

TEST(CliSupport, UnknownBackendIsRejectedWithTheValidNames) {
  auto r = testing::run_command(testing::memrel_command("run -b no-such-backend -w single-large"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown backend 'no-such-backend' (valid: cuda-malloc, "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("host-malloc"), std::string::npos);
}

TEST(CliSupport, ListSaysWhyCudaBackendsAreUnavailable) {
  auto r = testing::run_command(testing::memrel_command("list --json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  bool saw_host = false;
  for (const auto& b : j["backends"]) {
    if (!b["available"].get<bool>()) {
      EXPECT_FALSE(b["reason"].get<std::string>().empty()) << b.dump();
    }
    if (b["name"] == "host-malloc") saw_host = b["available"].get<bool>();
  }
  EXPECT_TRUE(saw_host);
}

TEST(CliSupport, AvailableBackendsAreTheRunnableNamesOneALine) {
  auto r = testing::run_command(testing::memrel_command("list --available-backends"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string expected;
  for (const auto& b : all_backends()) {
    if (b.availability().available) expected += b.name + "\n";
  }
  EXPECT_EQ(r.output, expected);
  EXPECT_NE(r.output.find("host-malloc\n"), std::string::npos);
}

TEST(CliSupport, BadOptionExitsTwo) {
  EXPECT_EQ(testing::run_command(testing::memrel_command("run --host-capacity lots")).exit_code, 2);
  EXPECT_EQ(testing::run_command(testing::memrel_command("frobnicate")).exit_code, 2);
}

}  // namespace
}  // namespace memrel
