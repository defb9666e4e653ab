// The memrel binary as users run it: names, listings and exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "allocators/backend_table.hpp"
#include "allocators/pluggable/pluggable_allocator.hpp"
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
  // Then the backends folder's files that can run here: the host example everywhere, a device
  // one only with a device (on the GPU machine, the CUDA example and RMM's torch allocator too).
  for (const auto& b : folder_backends(std::string(MEMREL_SOURCE_DIR) + "/benchmarks/backends")) {
    if (b.availability().available) expected += b.name + "\n";
  }
  EXPECT_EQ(r.output, expected);
  EXPECT_NE(r.output.find("host-malloc\n"), std::string::npos);
  EXPECT_NE(r.output.find("pluggable-host-example\n"), std::string::npos);
}

TEST(CommandLine, BadOptionExitsTwo) {
  EXPECT_EQ(testing::run_command(testing::memrel_command("run --host-capacity lots")).exit_code, 2);
  EXPECT_EQ(testing::run_command(testing::memrel_command("frobnicate")).exit_code, 2);
}

TEST(CommandLine, AMistypedSubcommandGetsTheNearestName) {
  auto r = testing::run_command(testing::memrel_command("runn -b host-malloc"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output,
            "memrel: unknown subcommand 'runn'; did you mean run? (memrel --help lists them)\n");
  r = testing::run_command(testing::memrel_command("--workloads-dir /tmp comapre a b"));
  EXPECT_NE(r.output.find("'comapre'; did you mean compare?"), std::string::npos) << r.output;
  r = testing::run_command(testing::memrel_command("frobnicate"));
  EXPECT_EQ(r.output, "memrel: unknown subcommand 'frobnicate' (memrel --help lists them)\n");
}

TEST(CommandLine, VersionNamesTheProjectVersionAndTheCommit) {
  auto r = testing::run_command(testing::memrel_command("--version"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("memrel 0.1.0 (commit ", 0), 0u) << r.output;
}

TEST(CommandLine, QuietRunPrintsNoProgressAndVerbosePrintsEveryCell) {
  testing::TempDir dir;
  const std::string run = "run -b host-malloc -w temp-then-delete,fragmentation -o ";
  auto quiet = testing::run_command(testing::memrel_command(run + dir.file("q.json") + " -q"));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("[1/2]"), std::string::npos) << quiet.output;
  EXPECT_EQ(quiet.output.find("[2/2]"), std::string::npos) << quiet.output;
  auto verbose = testing::run_command(testing::memrel_command("-v " + run + dir.file("v.json")));
  ASSERT_EQ(verbose.exit_code, 0) << verbose.output;
  EXPECT_NE(verbose.output.find("[1/2]"), std::string::npos) << verbose.output;
}

// CLI11 shows only an app's own options, so -q/-v are on every subcommand too; the Python
// subcommands' help is the script's, which has both (scripts/memrel_help.py).
TEST(CommandLine, EverySubcommandsHelpShowsQuietAndVerbose) {
  std::vector<std::string> commands;
  for (const cli::Subcommand& s : cli::subcommands()) commands.emplace_back(s.name);
  for (const char* nested : {"history add", "history show", "history list", "history changes",
                             "trace import", "trace show"}) {
    commands.emplace_back(nested);
  }
  for (const std::string& command : commands) {
    auto r = testing::run_command(testing::memrel_command(command + " --help"));
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.output;
    // CLI11 writes "-q,--quiet", argparse "-q, --quiet"; "--quick" must not pass for -q.
    for (const char* flag : {"-q", "--quiet", "-v", "--verbose"}) {
      EXPECT_TRUE(std::regex_search(r.output, std::regex(std::string("(^|[ ,])") + flag + "[, ]")))
          << "memrel " << command << " --help lacks " << flag << ":\n"
          << r.output;
    }
  }
}

// A -q before a Python subcommand reaches the script: the report then prints its path and
// nothing else (its verdict table and its "report: FOLDER/index.html" line are not for -q).
TEST(CommandLine, QuietBeforeAPythonSubcommandReachesIt) {
  testing::TempDir dir;
  auto run = testing::run_command(testing::memrel_command(
      "run -q -b host-malloc -w temp-then-delete -o " + dir.file("r.json")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string report = "report --out " + dir.file("site") + " " + dir.file("r.json");
  auto loud = testing::run_command(testing::memrel_command(report));
  ASSERT_EQ(loud.exit_code, 0) << loud.output;
  auto quiet = testing::run_command(testing::memrel_command("-q " + report));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output, dir.file("site") + "\n");
  EXPECT_LT(quiet.output.size(), loud.output.size()) << quiet.output << "\n--\n" << loud.output;
  auto after = testing::run_command(
      testing::memrel_command("report -q --out " + dir.file("s2") + " " + dir.file("r.json")));
  ASSERT_EQ(after.exit_code, 0) << after.output;
  EXPECT_EQ(after.output, dir.file("s2") + "\n");
  // run -q too: the results' path, and a line on stderr only when cells failed.
  EXPECT_EQ(run.output, dir.file("r.json") + "\n");
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

TEST(CommandLine, ABadShardIsOneLineAndExitTwoBeforeAnyCell) {
  testing::TempDir dir;
  const std::string out = dir.file("run.json");
  auto r = testing::run_command(
      testing::memrel_command("run -b host-malloc -w single-large --shard 5/4 -o '" + out + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output,
            "memrel: --shard '5/4': K must be a whole number from 1 to N (shards are 1/4 to "
            "4/4)\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A number is plain decimal ASCII on every subcommand (docs/inputs.md, "Numbers on the command
// line"): CLI11 alone took hexadecimal, a sign and a leading blank (the fifth adversarial pass).
TEST(CommandLine, NumbersAreDecimalAsciiOnEveryOption) {
  const std::string results = std::string(MEMREL_SOURCE_DIR) + "/results/baselines/host/suite.json";
  const std::string compare = "compare '" + results + "' '" + results + "' ";
  struct Case {
    std::string args, line;
  };
  for (const Case& c : std::vector<Case>{
           {compare + "--alpha 0x1p-2",
            "memrel: --alpha: '0x1p-2' is not a decimal number (ASCII digits, '.', an exponent)\n"},
           {compare + "--latency-min-change ' 0.1'",
            "memrel: --latency-min-change: ' 0.1' is not a decimal number (ASCII digits, '.', an "
            "exponent)\n"},
           {"ab -b null --rounds 0x5",
            "memrel: --rounds: '0x5' is not a whole number (ASCII digits, no leading zero)\n"},
           {"bench -b null --min-time +0.5",
            "memrel: --min-time: '+0.5' is not a decimal number (ASCII digits, '.', an "
            "exponent)\n"},
           {"bench -b null --timeout 0x10",
            "memrel: --timeout: '0x10' is not a whole number (ASCII digits, no leading zero)\n"},
           // CLI11 read 010 as octal: 8 rounds (the thirty-second adversarial pass).
           {"ab -b null --rounds 010",
            "memrel: --rounds: '010' is not a whole number (ASCII digits, no leading zero)\n"},
       }) {
    auto r = testing::run_command(testing::memrel_command(c.args));
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_EQ(r.output, c.line) << c.args;
  }
  // A decimal spelling with an exponent is still a number.
  auto r = testing::run_command(
      testing::memrel_command(compare + "--alpha 5e-2 --latency-min-change .1"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// `cell --after-pid` waits only for a memrel process (the slot's previous cell): by hand,
// `--after-pid 1` waited for init for ever (the fifth adversarial pass, na46).
TEST(CommandLine, ACellWaitsOnlyForAnotherMemrelProcess) {
  testing::TempDir dir;
  const std::string out = dir.file("cell.json");
  const std::string workload =
      std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads/single-large.json";
  auto r = testing::run_command(
      "timeout 20 " + testing::memrel_command("cell --backend null --workload '" + workload +
                                              "' --out '" + out + "' --after-pid 0000000001"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output,
            "memrel: --after-pid 0000000001: not a memrel process (a cell waits only for the cell "
            "before it in its slot)\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  // A process already gone is nothing to wait for.
  r = testing::run_command("timeout 20 " +
                           testing::memrel_command("cell --backend null --workload '" + workload +
                                                   "' --out '" + out + "' --after-pid 4194999"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// A refused merge is one line naming the file, exit 2, and the output file as it was.
TEST(CommandLine, MergeRefusesAnOverlapAndKeepsThePreviousOutput) {
  testing::TempDir dir;
  const std::string shard = dir.file("shard.json"), out = dir.file("merged.json");
  auto r = testing::run_command(
      testing::memrel_command("run -b null -w temp-then-delete --shard 1/1 -o '" + shard + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  testing::write_text(out, "previous");
  r = testing::run_command(
      testing::memrel_command("merge -o '" + out + "' '" + shard + "' '" + shard + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "memrel: " + shard + ": shard 1/1 again (" + shard +
                          " has it too): overlapping shards\n");
  EXPECT_EQ(testing::read_text(out), "previous");
  r = testing::run_command(testing::memrel_command("merge -o '" + shard + "' '" + shard + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "memrel: -o " + shard + ": is the input " + shard +
                          " (the same file); write the output elsewhere\n");
  r = testing::run_command(testing::memrel_command("merge -o '" + out + "' '" + shard + "'"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.substr(0, out.size() + 1), out + "\n") << r.output;
  EXPECT_EQ(read_run_file(out).cells.size(), 1u);
}

}  // namespace
}  // namespace memrel
