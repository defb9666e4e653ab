// The memrel binary as users run it: names, listings and exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "allocators/backend_table.hpp"
#include "cli/subcommands.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

TEST(CommandLine, UnknownBackendIsRejectedWithTheValidNames) {
  auto r = testing::run_command(testing::memrel_command("run -b no-such-backend -w single-large"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown backend 'no-such-backend' (valid: cuda-malloc, "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("host-malloc"), std::string::npos);
}

TEST(CommandLine, ListSaysWhyCudaBackendsAreUnavailable) {
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

TEST(CommandLine, AvailableBackendsAreTheRunnableNamesOneALine) {
  auto r = testing::run_command(testing::memrel_command("list --available-backends"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string expected;
  for (const auto& b : all_backends()) {
    if (b.availability().available) expected += b.name + "\n";
  }
  // Then the backends folder's files that can run here: the host example, never a device one
  // without a device.
  expected += "pluggable-host-example\n";
  EXPECT_EQ(r.output, expected);
  EXPECT_NE(r.output.find("host-malloc\n"), std::string::npos);
}

TEST(CommandLine, BadOptionExitsTwo) {
  EXPECT_EQ(testing::run_command(testing::memrel_command("run --host-capacity lots")).exit_code, 2);
  EXPECT_EQ(testing::run_command(testing::memrel_command("frobnicate")).exit_code, 2);
}

// The table is the one description of every backend: docs/backends.md is its rendering and
// must not drift from it.
TEST(CommandLine, DocsBackendsIsTheTableAsMarkdown) {
  auto r = testing::run_command(testing::memrel_command("list --markdown"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string doc = testing::read_text(std::string(MEMREL_SOURCE_DIR) + "/docs/backends.md");
  EXPECT_NE(doc.find(r.output), std::string::npos)
      << "docs/backends.md does not contain the output of `memrel list --markdown`; "
         "regenerate the table:\n"
      << r.output;
}

TEST(CommandLine, EverySubcommandOfTheTableHasHelp) {
  for (const auto& s : cli::subcommands()) {
    // Their help is the Python package's (memrel_report, memrel_trace).
    if (std::string(s.name) == "report" || std::string(s.name) == "trace") continue;
    auto r = testing::run_command(testing::memrel_command(std::string(s.name) + " --help"));
    EXPECT_EQ(r.exit_code, 0) << s.name << ": " << r.output;
    EXPECT_NE(r.output.find(s.description), std::string::npos) << s.name << ": " << r.output;
  }
}

}  // namespace
}  // namespace memrel
