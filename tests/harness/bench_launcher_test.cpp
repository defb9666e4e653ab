// The launcher's pure parts: the file a backend's benchmarks go to, and the argv of its process.
// Its scheduling is tested through `memrel bench` (tests/cli/bench_test.cpp).
#include "harness/execution/bench_launcher.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace memrel {
namespace {

TEST(BenchLauncher, AFileIsNamedAfterTheBackendsNameAsOnePlainFileName) {
  EXPECT_EQ(bench_file_name("cuda-async-retain"), "bench-cuda-async-retain.json");
  EXPECT_EQ(bench_file_name("my.alloc_v2"), "bench-my.alloc_v2.json");
  // Whatever a name holds, the result stays one file inside the folder.
  EXPECT_EQ(bench_file_name("../etc/x y"), "bench-.._etc_x_y.json");
  EXPECT_EQ(bench_file_name(""), "bench-_.json");
  EXPECT_EQ(file_name_piece("a/b"), "a_b");
}

TEST(BenchLauncher, ArgumentsNameTheBackendsFolderTheOutputAndThenTheCallers) {
  BenchCommand command;
  command.bench = "/b/memrel_bench";
  command.backends_dir = "/src/benchmarks/backends";
  command.quick = true;
  command.bench_args = {"--benchmark_filter=^pair/"};
  BenchJob job;
  job.backend = "/elsewhere/mine.json";
  job.json_path = "/out/bench-mine.json";
  EXPECT_EQ(bench_arguments(command, job),
            (std::vector<std::string>{
                "/b/memrel_bench", "--backends-dir", "/src/benchmarks/backends", "--backend",
                "/elsewhere/mine.json", "--quick",
                "--benchmark_out=/out/bench-mine.json.tmp-" + std::to_string(getpid()),
                "--benchmark_out_format=json", "--benchmark_filter=^pair/"}));
  command.backends_dir.clear();
  command.quick = false;
  command.bench_args.clear();
  EXPECT_EQ(bench_arguments(command, job),
            (std::vector<std::string>{
                "/b/memrel_bench", "--backend", "/elsewhere/mine.json",
                "--benchmark_out=/out/bench-mine.json.tmp-" + std::to_string(getpid()),
                "--benchmark_out_format=json"}));
}

}  // namespace
}  // namespace memrel
