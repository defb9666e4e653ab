// memrel bench end to end on the CPU. With the real memrel_bench: one valid Google Benchmark
// JSON per backend, named after the backend's name also for a backend file given by path. With a
// stub memrel_bench (--bench), what the scripts' bash loop was tested for before it went: the
// arguments each process gets, a failed backend reported while the others still run, the default
// backends (memrel list --available-backends), one per GPU at a time with --gpus (fake GPUs), a
// timeout that ends the process group, and bad input refused before anything runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using memrel::testing::memrel_command;
using memrel::testing::read_text;
using memrel::testing::run_command;
using memrel::testing::TempDir;
using memrel::testing::write_text;

const std::string kBench =
    (fs::path(MEMREL_BINARY).parent_path() / "benchmarks" / "memrel_bench").string();
const std::string kHostExampleFile =
    std::string(MEMREL_SOURCE_DIR) + "/benchmarks/backends/pluggable-host-example.json";

// Records its arguments (one call a line, separated by \x1f) in $CALLS, prints a line on stdout
// and one on stderr, writes --benchmark_out (one benchmark: a file the gate refuses is not kept),
// and then: for the backend "null" exits 3 (a failed benchmark, its file written); for
// "host-malloc-retain" writes nothing and exits 0 (unavailable).
constexpr const char* kRecordingStub = R"(#!/usr/bin/env bash
printf '%s\x1f' "$@" >>"$CALLS"; printf '\n' >>"$CALLS"
backend="" out=""
while (($#)); do
  case $1 in
    --backend) backend=$2; shift ;;
    --benchmark_out=*) out=${1#--benchmark_out=} ;;
  esac
  shift
done
echo "stub stdout $backend"
echo "stub stderr $backend" >&2
if [[ $backend == host-malloc-retain ]]; then echo "memrel_bench: backend $backend unavailable: stub" >&2; exit 0; fi
echo '{"context": {}, "benchmarks": [{"name": "pair/stub", "run_name": "pair/stub", "run_type": "iteration", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]}' >"$out"
# As memrel_bench fails one benchmark: its entry says so (SkipWithError), the others' figures kept.
if [[ $backend == null ]]; then
  echo '{"context": {}, "benchmarks": [{"name": "pair/stub", "run_name": "pair/stub", "run_type": "iteration", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}, {"name": "pair/failed", "run_name": "pair/failed", "run_type": "iteration", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns", "error_occurred": true, "error_message": "stub failure"}]}' >"$out"
  echo "memrel_bench: 1 benchmark run(s) of backend null failed" >&2; exit 3
fi
exit 0
)";

// Every stub answers --help as memrel_bench does (memrel asks it once, cli/bench_probe.hpp),
// after its first line, the #! line.
std::string write_stub(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("memrel_bench_stub");
  const std::size_t first = text.find('\n') + 1;
  write_text(path, text.substr(0, first) +
                       "[[ $1 == --help ]] && { echo 'Usage: memrel_bench stub'; exit 0; }\n" +
                       text.substr(first));
  chmod(path.c_str(), 0755);
  return path;
}

std::vector<std::vector<std::string>> recorded_calls(const std::string& path) {
  std::vector<std::vector<std::string>> calls;
  std::istringstream lines(read_text(path));
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> words;
    std::string word;
    std::istringstream fields(line);
    while (std::getline(fields, word, '\x1f')) words.push_back(word);
    calls.push_back(words);
  }
  return calls;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

class BenchCommand : public ::testing::Test {
 protected:
  TempDir dir;
  std::string calls = dir.file("calls"), out = dir.file("out");

  // memrel bench with the stub, stdout and stderr apart.
  memrel::testing::CommandResult bench_with_stub(const std::string& stub_text,
                                                 const std::string& args,
                                                 const std::string& environment = "") {
    const std::string stub = write_stub(dir, stub_text);
    // In braces, so that run_command's own 2>&1 does not take stderr back from the file.
    return run_command("{ CALLS='" + calls + "' " + environment + " " +
                       memrel_command("bench --bench '" + stub + "' -o '" + out + "' " + args) +
                       " 2>'" + dir.file("stderr") + "'; }");
  }
  std::string stderr_text() const { return read_text(dir.file("stderr")); }
};

TEST_F(BenchCommand, WritesOneValidJsonPerBackendNamedAfterIt) {
  if (access(kBench.c_str(), X_OK) != 0)
    GTEST_SKIP() << kBench << " is not built (no Google Benchmark at configure time)";
  auto r = run_command(memrel_command("bench -b host-malloc -b null -o '" + out +
                                      "' --quick --filter '^pair/[^/]+/warm/512/' "
                                      "--min-time 0.001"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"bench-host-malloc.json", "bench-null.json"}));
  for (const std::string backend : {"host-malloc", "null"}) {
    nlohmann::json doc = nlohmann::json::parse(read_text(out + "/bench-" + backend + ".json"));
    ASSERT_FALSE(doc["benchmarks"].empty()) << backend;
    for (const auto& b : doc["benchmarks"])
      EXPECT_EQ(b["run_name"].get<std::string>().rfind("pair/" + backend + "/warm/512/", 0), 0u)
          << b["run_name"];
    EXPECT_EQ(doc["context"]["memrel_backend"], backend);
    EXPECT_NE(r.output.find("bench " + backend + ": "), std::string::npos) << r.output;
  }
}

TEST_F(BenchCommand, ABackendFileByPathIsNamedAfterItsBackendsName) {
  if (access(kBench.c_str(), X_OK) != 0)
    GTEST_SKIP() << kBench << " is not built (no Google Benchmark at configure time)";
  auto r = run_command(memrel_command("bench -b '" + kHostExampleFile + "' -o '" + out +
                                      "' --quick --filter '^pair/[^/]+/warm/512/' "
                                      "--min-time 0.001 --logs '" +
                                      dir.file("logs") + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"bench-pluggable-host-example.json"}));
  EXPECT_EQ(files_in(dir.file("logs")),
            (std::vector<std::string>{"bench-pluggable-host-example.log"}));
  nlohmann::json doc = nlohmann::json::parse(read_text(out + "/bench-pluggable-host-example.json"));
  EXPECT_FALSE(doc["benchmarks"].empty());
}

TEST_F(BenchCommand, EachProcessGetsTheBackendsFolderAndTheOptions) {
  const std::string backends_dir = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/backends";
  auto r = bench_with_stub(kRecordingStub,
                           "-b host-malloc --quick --filter '^pair/' --min-time 0.5 "
                           "--bench-arg=--benchmark_repetitions=9");
  ASSERT_EQ(r.exit_code, 0) << r.output << stderr_text();
  // The stub records its arguments from $1 on. It writes a temporary file beside the output
  // (memrel's pid in its name), which memrel puts in place once it has exited.
  std::vector<std::vector<std::string>> calls_seen = recorded_calls(calls);
  for (auto& call : calls_seen)
    for (auto& word : call)
      if (word.rfind("--benchmark_out=", 0) == 0 && word.find(".json.tmp-") != std::string::npos)
        word = word.substr(0, word.find(".tmp-"));
  // First the filter, matched against the names as the null backend lists them (in time: a
  // filter that backtracks without end is refused, cli/bench_probe.hpp); then the run.
  const std::vector<std::vector<std::string>> expected = {
      {"--backend", "null", "--benchmark_list_tests=true", "--benchmark_filter=^pair/"},
      {"--backends-dir", backends_dir, "--backend", "host-malloc", "--quick",
       "--benchmark_out=" + out + "/bench-host-malloc.json", "--benchmark_out_format=json",
       "--benchmark_filter=^pair/", "--min-time=0.5", "--benchmark_repetitions=9"}};
  EXPECT_EQ(calls_seen, expected);
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"bench-host-malloc.json"}));
}

TEST_F(BenchCommand, AFailedBackendIsReportedAndTheOthersStillRun) {
  auto r = bench_with_stub(kRecordingStub, "-b null -b host-malloc-retain -b host-malloc --logs '" +
                                               dir.file("logs") + "'");
  EXPECT_EQ(r.exit_code, 3) << r.output << stderr_text();
  std::vector<std::string> backends;
  for (const auto& call : recorded_calls(calls)) backends.push_back(call.at(3));
  EXPECT_EQ(backends, (std::vector<std::string>{"null", "host-malloc-retain", "host-malloc"}));
  // Every backend's time on stdout, in order (one at a time); what went wrong on stderr.
  std::istringstream lines(r.output);
  std::vector<std::string> timed;
  std::string line;
  while (std::getline(lines, line)) timed.push_back(line.substr(0, line.find(':')));
  EXPECT_EQ(timed, (std::vector<std::string>{"bench null", "bench host-malloc-retain",
                                             "bench host-malloc"}));
  const std::string err = stderr_text();
  EXPECT_NE(err.find("bench null: rc 3: memrel_bench: 1 benchmark run(s) of backend null failed"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("bench host-malloc-retain: unavailable here: memrel_bench: backend "
                     "host-malloc-retain unavailable: stub"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("3 backend(s): 1 ok, 1 unavailable here, 1 failed, crashed or timed out"),
            std::string::npos)
      << err;
  // null's file records its failed benchmark: kept with the other's figure.
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"bench-host-malloc.json", "bench-null.json"}));
  EXPECT_EQ(read_text(dir.file("logs/bench-host-malloc.log")),
            "stub stdout host-malloc\nstub stderr host-malloc\n");
}

TEST_F(BenchCommand, WithoutBackendsItRunsTheOnesListedAsAvailable) {
  auto listed = run_command(memrel_command("list --available-backends 2>/dev/null"));
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  std::vector<std::string> expected;
  std::istringstream names(listed.output);
  for (std::string name; names >> name;) expected.push_back(name);
  ASSERT_FALSE(expected.empty());
  auto r = bench_with_stub(kRecordingStub, "");
  std::vector<std::string> backends;
  for (const auto& call : recorded_calls(calls)) backends.push_back(call.at(3));
  EXPECT_EQ(backends, expected) << stderr_text();
}

// Waits (10 s at most) until two stubs have arrived: run one at a time, none would get past it.
// Fails when another stub holds its GPU.
constexpr const char* kMeetingStub = R"(#!/usr/bin/env bash
backend="" out=""
while (($#)); do
  case $1 in
    --backend) backend=$2; shift ;;
    --benchmark_out=*) out=${1#--benchmark_out=} ;;
  esac
  shift
done
meet=$(dirname "$CALLS")/meet
mkdir -p "$meet"
mkdir "$meet/busy-$CUDA_VISIBLE_DEVICES" 2>/dev/null || { echo "two on GPU $CUDA_VISIBLE_DEVICES" >&2; exit 9; }
echo "$backend $CUDA_VISIBLE_DEVICES $CUDA_DEVICE_ORDER" >"$meet/arrived-$backend"
n=$(ls "$meet" | grep -c '^arrived-')
target=$(( (n + 1) / 2 * 2 ))
for _ in $(seq 200); do
  (( $(ls "$meet" | grep -c '^arrived-') >= target )) && break
  sleep 0.05
done
rmdir "$meet/busy-$CUDA_VISIBLE_DEVICES"
(( $(ls "$meet" | grep -c '^arrived-') >= target )) || { echo "alone" >&2; exit 7; }
echo '{"context": {}, "benchmarks": [{"name": "pair/stub", "run_name": "pair/stub", "run_type": "iteration", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]}' >"$out"
)";

TEST_F(BenchCommand, WithGpusOneBackendRunsPerGpuAtATimeSeeingOnlyIt) {
  const std::vector<std::string> backends = {"host-malloc", "host-malloc-retain", "null",
                                             "pluggable-host-example"};
  auto r = bench_with_stub(
      kMeetingStub,
      "--gpus 1,2 -b " + backends[0] + "," + backends[1] + "," + backends[2] + "," + backends[3],
      "MEMREL_FAKE_GPUS=3");
  ASSERT_EQ(r.exit_code, 0) << r.output << stderr_text();
  std::vector<std::string> gpus_seen;
  for (const std::string& b : backends) {
    std::istringstream arrived(read_text(dir.file("meet/arrived-" + b)));
    std::string name, gpu, order;
    arrived >> name >> gpu >> order;
    EXPECT_EQ(order, "PCI_BUS_ID") << b;
    gpus_seen.push_back(gpu);
    // Each line says where it ran, as the stub saw it.
    EXPECT_NE(r.output.find("bench " + b + ": "), std::string::npos) << r.output;
    const std::size_t at = r.output.find("bench " + b + ": ");
    EXPECT_NE(r.output.substr(at, r.output.find('\n', at) - at).find("(gpu " + gpu + ")"),
              std::string::npos)
        << r.output;
  }
  std::sort(gpus_seen.begin(), gpus_seen.end());
  gpus_seen.erase(std::unique(gpus_seen.begin(), gpus_seen.end()), gpus_seen.end());
  EXPECT_EQ(gpus_seen, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(files_in(out).size(), 4u);
}

TEST_F(BenchCommand, ATimeoutEndsTheBackendAndWhatItStarted) {
  // The stub leaves a sleeping child of its own, then sleeps itself.
  const std::string stub = std::string("#!/usr/bin/env bash\nsleep 300 &\necho $! >\"") +
                           dir.file("grandchild") + "\"\nsleep 300\n";
  auto r = bench_with_stub(stub, "-b host-malloc --timeout 1");
  EXPECT_EQ(r.exit_code, 3) << r.output << stderr_text();
  EXPECT_NE(stderr_text().find("bench host-malloc: rc timeout: killed after the timeout of 1 s"),
            std::string::npos)
      << stderr_text();
  const pid_t grandchild = std::stoi(read_text(dir.file("grandchild")));
  // Killed with its group; reaped by init soon after.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone =
        kill(grandchild, 0) != 0 ||
        read_text("/proc/" + std::to_string(grandchild) + "/stat").find(") Z") != std::string::npos;
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone) << "pid " << grandchild << " outlived its timeout";
}

TEST_F(BenchCommand, SigtermEndsTheRunningBenchmarkAndExits143) {
  const std::string pid_file = dir.file("stub-pid");
  const std::string stub =
      write_stub(dir, "#!/usr/bin/env bash\necho $$ >\"" + pid_file + ".tmp\"\nmv \"" + pid_file +
                          ".tmp\" \"" + pid_file + "\"\nsleep 300\n");
  // memrel in the background of a shell that sends it SIGTERM once the stub has started.
  auto r = run_command(
      "{ " +
      memrel_command("bench --bench '" + stub + "' -b host-malloc -b null -o '" + out + "'") +
      " & m=$!; for i in $(seq 1000); do [ -f '" + pid_file +
      "' ] && break; sleep 0.01; done; kill -TERM $m; wait $m; echo \"exit=$?\"; }");
  EXPECT_NE(r.output.find("exit=143"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("interrupted by SIGTERM: 1 running memrel_bench ended"),
            std::string::npos)
      << r.output;
  const pid_t stub_pid = std::stoi(read_text(pid_file));
  EXPECT_NE(kill(stub_pid, 0), 0) << "the stub (pid " << stub_pid << ") outlived memrel bench";
}

TEST_F(BenchCommand, BadInputExits2WithOneLineBeforeAnythingRuns) {
  struct Case {
    std::string args, environment, names;
  };
  const std::vector<Case> cases = {
      {"-b no-such-backend", "", "no-such-backend"},
      {"-b pluggable-host-example -b '" + kHostExampleFile + "'", "", "already given"},
      {"-b host-malloc --gpus 3", "MEMREL_FAKE_GPUS=2", "--gpus"},
      {"-b host-malloc --gpus 1,1", "MEMREL_FAKE_GPUS=2", "--gpus"},
      {"-b host-malloc --gpus x", "MEMREL_FAKE_GPUS=2", "--gpus"},
      {"-b host-malloc --timeout 0", "", "--timeout"},
      {"-b host-malloc --min-time 0", "", "--min-time"},
  };
  for (const Case& c : cases) {
    auto r = bench_with_stub(kRecordingStub, c.args, c.environment);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << stderr_text();
    EXPECT_NE(stderr_text().find(c.names), std::string::npos) << c.args << ": " << stderr_text();
    EXPECT_FALSE(fs::exists(calls)) << c.args << ": memrel_bench ran";
    EXPECT_FALSE(fs::exists(out)) << c.args << ": the output folder was made";
  }
  auto missing = run_command(
      memrel_command("bench -b host-malloc --bench /nonexistent/memrel_bench -o '" + out + "'"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("/nonexistent/memrel_bench"), std::string::npos);
}

TEST_F(BenchCommand, MemrelBenchsUsageErrorIsOneAndStopsTheRest) {
  const std::string stub =
      "#!/usr/bin/env bash\necho x >>\"$CALLS\"\necho 'memrel_bench: unrecognized command-line "
      "flag' >&2\nexit 2\n";
  auto r = bench_with_stub(stub, "-b host-malloc -b null");
  EXPECT_EQ(r.exit_code, 2) << stderr_text();
  EXPECT_NE(
      stderr_text().find("--backend host-malloc: memrel_bench: unrecognized command-line flag"),
      std::string::npos)
      << stderr_text();
  EXPECT_EQ(read_text(calls), "x\n");  // null did not start
}

}  // namespace
