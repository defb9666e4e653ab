// The torch-* backends (allocators/torch/) against the H200 figures in docs/design.md,
// through the real binary: one `memrel cell` per (backend, workload), started with the
// environment the runner gives that backend. Label gpu: skipped with the reason where there is
// no GPU or memrel was built without its LibTorch plugin.
//
// Attribution, checked in every test: NVML's charge to the process at a mark =
//   setup.process_used_after_context (cudaFree(0), before LibTorch loads)
// + setup.backend_init_process_bytes (dlopen of LibTorch, lazyInitDevice, the config check)
// + reserved (the allocator's segments: live and cached)
// + remainder (kernels and library handles loaded after init: a program's first kernel loads
//   its module, its first matmul cuBLAS).
// Trace workloads launch no kernels, so their remainder must be 0 within one 2 MiB granule.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "allocators/backend_table.hpp"
#include "allocators/torch/plugin_loader.hpp"
#include "harness/results/results.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

constexpr std::int64_t MiB = 1 << 20;
// The driver maps device memory in 2 MiB pages; NVML's and cudaMemGetInfo's figures may differ
// from the allocator's by up to one page.
constexpr std::int64_t kGranule = 2 * MiB;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

class TorchBackends : public ::testing::Test {
 protected:
  void SetUp() override {
    Availability a = resolve_backend("torch-native", "").availability();
    if (!a.available) GTEST_SKIP() << "torch backends cannot run here: " << a.reason;
  }

  // One cell in a child process, with the backend's environment as the runner sets it
  // (BackendInfo::cell_environment), any PyTorch allocator settings of ours removed first.
  CellResult cell(const std::string& backend, const std::string& workload,
                  const std::string& extra_env = "", bool with_backend_env = true) {
    std::string env = "env -u PYTORCH_ALLOC_CONF -u PYTORCH_CUDA_ALLOC_CONF";
    if (with_backend_env) {
      for (const auto& [k, v] : resolve_backend(backend, "").cell_environment)
        env += " " + k + "='" + v + "'";
    }
    env += " " + extra_env;
    testing::CellThroughCli r = testing::cell_through_cli(dir_, backend, workload, env);
    EXPECT_EQ(r.command.exit_code, 0) << r.command.output;
    return r.cell;
  }

  CellResult ok_cell(const std::string& backend, const std::string& workload,
                     const std::string& extra_env = "") {
    CellResult c = cell(backend, workload, extra_env);
    EXPECT_EQ(c.status, "ok") << backend << " x " << workload << ": " << c.reason;
    return c;
  }

  static const Snapshot& at(const CellResult& c, const std::string& label) {
    return testing::mark_at(c, label);
  }

  // NVML's figure minus the three named parts; empty where NVML cannot say.
  static std::int64_t remainder(const CellResult& c, const Snapshot& s) {
    return i64(*s.process_used) - i64(*c.setup.process_used_after_context) -
           *c.setup.backend_init_process_bytes - i64(*s.reserved);
  }

  static void expect_attribution_known(const CellResult& c) {
    ASSERT_TRUE(c.setup.process_used_after_context.has_value()) << c.setup.process_probe_note;
    ASSERT_TRUE(c.setup.backend_init_process_bytes.has_value());
    for (const auto& m : c.marks) {
      ASSERT_TRUE(m.at.process_used.has_value()) << m.label;
      ASSERT_TRUE(m.at.reserved.has_value()) << m.label;
    }
  }

  // The attribution table, for the report (ctest shows it with --output-on-failure or -V).
  static void print_attribution(const CellResult& c) {
    auto mib = [](std::int64_t b) { return static_cast<double>(b) / MiB; };
    std::cout << std::fixed << std::setprecision(1) << c.backend << " x " << c.workload
              << ": context " << mib(i64(*c.setup.process_used_after_context))
              << " MiB, LibTorch init " << mib(*c.setup.backend_init_process_bytes) << " MiB\n";
    // A peak mark's allocated/reserved are high-water marks: its remainder is not meaningful.
    for (const auto& m : c.marks) {
      std::cout << "  " << std::setw(28) << std::left << m.label << std::right << " requested "
                << std::setw(8) << mib(i64(m.at.requested)) << "  allocated " << std::setw(8)
                << mib(i64(*m.at.allocated)) << "  reserved " << std::setw(8)
                << mib(i64(*m.at.reserved)) << "  remainder " << std::setw(7)
                << mib(remainder(c, m.at)) << "  NVML " << std::setw(8)
                << mib(i64(*m.at.process_used)) << "  host RSS " << mib(i64(m.at.host_rss)) << "\n";
    }
  }

  // A trace workload launches no kernel: context + init + reserved is the whole NVML figure.
  static void expect_attribution_closes(const CellResult& c) {
    expect_attribution_known(c);
    print_attribution(c);
    for (const auto& m : c.marks) {
      EXPECT_LE(std::llabs(remainder(c, m.at)), kGranule)
          << c.backend << " x " << c.workload << " at " << m.label;
    }
  }

  testing::TempDir dir_;
};

// The Python table in docs/design.md reads reserved 362 MiB after randn(120,3,512,512).to(cuda):
// 360 MiB for the tensor plus the 2 MiB small-pool segment that the measurement's first 1-element
// tensor left cached. A trace cell makes no such tensor (backend init is lazyInitDevice only),
// so raw_alloc(377487360) is one large-pool segment rounded to 2 MiB, which 360 MiB already is:
// reserved = allocated = 360 MiB exactly. The 2 MiB comes back, to the byte, in the seed-000
// program below, which does make the tensor. The later rows agree as they are: 360/360,
// 0/360, 0/0.
TEST_F(TorchBackends, NativeSingleLargeFollowsTheCachingRulesToTheByte) {
  CellResult c = ok_cell("torch-native", "single-large");
  const std::uint64_t tensor = 377487360;  // 120*3*512*512*4
  EXPECT_EQ(*at(c, "after-alloc").allocated, tensor);
  EXPECT_EQ(*at(c, "after-alloc").reserved, tensor);
  EXPECT_EQ(*at(c, "after-release-only").allocated, tensor);
  EXPECT_EQ(*at(c, "after-release-only").reserved, tensor);
  EXPECT_EQ(*at(c, "after-free-only").allocated, 0u);
  EXPECT_EQ(*at(c, "after-free-only").reserved, tensor);
  EXPECT_NEAR(at(c, "after-free-only").device_used_delta, i64(tensor), kGranule);
  EXPECT_EQ(*at(c, "after-free-release").allocated, 0u);
  EXPECT_EQ(*at(c, "after-free-release").reserved, 0u);
  EXPECT_LE(std::llabs(at(c, "after-free-release").device_used_delta), kGranule);
  ASSERT_EQ(c.metrics.releases.size(), 2u);
  EXPECT_FALSE(c.metrics.releases[0].effectiveness.has_value())
      << "nothing releasable while x lives";
  ASSERT_TRUE(c.metrics.releases[1].effectiveness.has_value());
  EXPECT_NEAR(*c.metrics.releases[1].effectiveness, 1.0, 0.01);
  expect_attribution_closes(c);
}

// Seed 001 as a trace: two 4 000 000-byte blocks (rounded to 4 000 256) share one 20 MiB
// large-pool segment (requests of 1 to 10 MiB get 20 MiB); x keeps it alive through the release.
TEST_F(TorchBackends, NativeTempThenDeleteKeepsThe20MiBSegment) {
  CellResult c = ok_cell("torch-native", "temp-then-delete");
  const std::uint64_t block = 4000256;
  EXPECT_EQ(*at(c, "after-alloc").allocated, 2 * block);
  EXPECT_EQ(*at(c, "after-alloc").reserved, 20u * MiB);
  EXPECT_EQ(*at(c, "after-free-only").allocated, block);
  EXPECT_EQ(*at(c, "after-free-release").allocated, block);     // 3.8 MiB, as docs/design.md
  EXPECT_EQ(*at(c, "after-free-release").reserved, 20u * MiB);  // 20.0 MiB, as docs/design.md
  expect_attribution_closes(c);
}

TEST_F(TorchBackends, AsyncRounds360MiBTo384AndKeepsItUntilEmptyCache) {
  CellResult c = ok_cell("torch-async", "single-large");
  EXPECT_EQ(*at(c, "after-alloc").allocated, 360u * MiB);
  EXPECT_EQ(*at(c, "after-alloc").reserved, 384u * MiB);  // docs/design.md: 384 MiB for 360
  // PyTorch sets the default pool's release threshold to UINT64_MAX: the pool keeps freed
  // memory until emptyCache trims it.
  EXPECT_EQ(*at(c, "after-free-only").reserved, 384u * MiB);
  EXPECT_EQ(*at(c, "after-free-release").reserved, 0u);
  EXPECT_LE(std::llabs(at(c, "after-free-release").device_used_delta), kGranule);
  expect_attribution_closes(c);
}

// Both run their configuration (the plugin checks it at cell start: status ok means it held)
// and return everything at free + release.
TEST_F(TorchBackends, ExpandableAndGcRunTheirConfigurationAndReleaseEverything) {
  for (const char* backend : {"torch-expandable", "torch-gc"}) {
    CellResult c = ok_cell(backend, "single-large");
    // 360 MiB is a whole number of 2 MiB pages and of expandable segments' 20 MiB pages.
    EXPECT_EQ(*at(c, "after-alloc").reserved, 360u * MiB) << backend;
    EXPECT_EQ(*at(c, "after-free-only").reserved, 360u * MiB) << backend;
    EXPECT_EQ(*at(c, "after-free-release").reserved, 0u) << backend;
    EXPECT_LE(std::llabs(at(c, "after-free-release").device_used_delta), kGranule) << backend;
    expect_attribution_closes(c);
  }
}

// The check at cell start fails the cell, loudly, when the environment is not the variant's
// (here: `memrel cell` started by hand, without the runner's PYTORCH_*ALLOC_CONF).
TEST_F(TorchBackends, AVariantWithoutItsSettingsFailsTheCell) {
  CellResult e = cell("torch-expandable", "single-large", "", /*with_backend_env=*/false);
  EXPECT_EQ(e.status, "error");
  EXPECT_NE(e.reason.find("expandable_segments is False, expected True"), std::string::npos)
      << e.reason;
  CellResult a = cell("torch-async", "single-large", "", /*with_backend_env=*/false);
  EXPECT_EQ(a.status, "error");
  EXPECT_NE(a.reason.find("is native, expected cudaMallocAsync"), std::string::npos) << a.reason;
}

// The seed's scripts through LibTorch reproduce The Python table in docs/design.md to the byte.
TEST_F(TorchBackends, Seed000ProgramMatchesThePythonFiguresToTheByte) {
  CellResult c = ok_cell("torch-native", "torch-seed-000");
  struct Row {
    const char* label;
    std::uint64_t allocated, reserved;
  };
  const std::uint64_t t = 377487360, huge = 4294967296;
  const Row rows[] = {
      {"after-context", 0, 2 * MiB},
      {"single:after-alloc", t, t + 2 * MiB},  // 360.0 / 362.0
      {"single:after-release-only", t, t},     // 360.0 / 360.0
      {"single:after-free-only", 0, t},        // 0.0 / 360.0
      {"single:after-free-release", 0, 0},
      {"pair:after-alloc", 2 * t, 2 * t},  // 720 / 720
      {"pair:after-release-only", 2 * t, 2 * t},
      {"pair:after-free-release", 0, 0},
      {"huge:after-alloc", huge, huge},  // 4096 / 4096
      {"huge:after-release-only", huge, huge},
      {"huge:after-free-only", 0, huge},  // 0 / 4096: del without empty_cache
      {"huge:after-free-release", 0, 0},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(*at(c, r.label).allocated, r.allocated) << r.label;
    EXPECT_EQ(*at(c, r.label).reserved, r.reserved) << r.label;
  }
  expect_attribution_known(c);
  print_attribution(c);
  // Kernels: the 1-element tensor's fill, then the device fill of the first seed tensor (normal_,
  // where the seed's randn ran on the CPU): the remainder is their modules, and must not move
  // by more than a granule after the context.
  const std::int64_t kernels = remainder(c, at(c, "after-context"));
  EXPECT_GE(kernels, -kGranule);
  for (const auto& m : c.marks) {
    EXPECT_NEAR(remainder(c, m.at), kernels, kGranule) << m.label;
  }
  // NVML moves by the tensor when it is allocated and returns it (and the 2 MiB) at release.
  EXPECT_NEAR(
      i64(*at(c, "single:after-alloc").process_used) - i64(*at(c, "after-context").process_used),
      i64(t), kGranule);
  EXPECT_NEAR(i64(*at(c, "after-context").process_used) -
                  i64(*at(c, "single:after-free-release").process_used),
              2 * MiB, kGranule);
}

// The torch programs' requests, as the allocator beneath torch receives them (issue 25): the seed
// programs make their tensors on the device and fill them there (normal_, uniform_) where the
// seeds' scripts drew them on the CPU and copied them over. Recorded through PyTorch's pluggable
// allocator over cuda-malloc, every request, release and mark in order must be the one the CPU
// version made: one allocation of the tensor's bytes where .to('cuda') made it, freed at the same
// moment. The expectations are written from the seeds' scripts (randn(...).to('cuda') allocates
// its result once and nothing else on the device); a fill that allocated a temporary, or a
// different order, fails here.
class RecordingAllocator : public Allocator {
 public:
  RecordingAllocator(std::unique_ptr<Allocator> inner, std::vector<std::string>& log)
      : inner_(std::move(inner)), log_(log) {}
  void* allocate(std::size_t bytes) override {
    log_.push_back("alloc " + std::to_string(bytes));
    return inner_->allocate(bytes);
  }
  void deallocate(void* p, std::size_t bytes) override {
    log_.push_back("free " + std::to_string(bytes));
    inner_->deallocate(p, bytes);
  }
  void release() override {
    log_.push_back("release");
    inner_->release();
  }
  void synchronize() override { inner_->synchronize(); }
  void fill(void* p, std::size_t bytes) override { inner_->fill(p, bytes); }
  Usage usage() const override { return inner_->usage(); }
  MemorySpace space() const override { return inner_->space(); }

 private:
  std::unique_ptr<Allocator> inner_;
  std::vector<std::string>& log_;
};

class RecordingContext : public ProgramContext {
 public:
  explicit RecordingContext(std::vector<std::string>& log) : log_(log) {}
  void mark(const std::string& label, std::uint64_t) override { log_.push_back("mark " + label); }
  void mark_peaks(const std::string& label, std::uint64_t, const Usage&) override {
    log_.push_back("mark " + label);
  }

 private:
  std::vector<std::string>& log_;
};

// The program's requests in a child process: PyTorch takes its pluggable allocator once per
// process, and this one must not create a CUDA context before it forks.
std::vector<std::string> requests_of(const std::string& program, const std::string& args) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::vector<std::string> log;
    std::string text;
    try {
      RecordingAllocator recorder(resolve_backend("cuda-malloc", "").make(), log);
      RecordingContext context(log);
      run_torch_program_on(recorder, program, args, context);
      for (const std::string& line : log) text += line + "\n";
    } catch (const std::exception& e) {
      text = std::string("error ") + e.what() + "\n";
    }
    for (std::size_t done = 0; done < text.size();) {
      ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(text.substr(at, end - at));
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "  " + l + "\n";
  return s;
}

TEST_F(TorchBackends, SeedProgramRequestsAreTheSeedsToTheByte) {
  const std::string t = "377487360", huge = "4294967296";
  const std::vector<std::string> expected = {
      "alloc 4",
      "free 4",
      "mark after-context",  // torch.zeros(1, device='cuda'); del
      "alloc " + t,
      "mark single:after-alloc",
      "release",
      "mark single:after-release-only",
      "free " + t,
      "mark single:after-free-only",
      "release",
      "mark single:after-free-release",
      "alloc " + t,
      "alloc " + t,
      "mark pair:after-alloc",
      "release",
      "mark pair:after-release-only",
      "free " + t,
      "free " + t,
      "release",
      "mark pair:after-free-release",
      "alloc " + huge,
      "mark huge:after-alloc",
      "release",
      "mark huge:after-release-only",
      "free " + huge,
      "mark huge:after-free-only",
      "release",
      "mark huge:after-free-release"};
  std::vector<std::string> got = requests_of("seed-000", "{}");
  EXPECT_EQ(got, expected) << "recorded:\n" << joined(got);
}

TEST_F(TorchBackends, ToHostProgramRequestsAreTheSeedsToTheByte) {
  const std::string t = "377487360";
  const std::vector<std::string> expected = {"alloc " + t,
                                             "mark after-to-device",
                                             "mark after-to-host",
                                             "free " + t,
                                             "mark after-del-device",
                                             "release",
                                             "mark after-empty-cache",
                                             "mark after-del-host"};
  std::vector<std::string> got = requests_of("to-host-then-delete", "{}");
  EXPECT_EQ(got, expected) << "recorded:\n" << joined(got);
}

// Up to the first matmul: the weights, each parameter once in model order, then the input. What
// follows (cuBLAS's workspace, the activations) is the program's work, not its data.
TEST_F(TorchBackends, LinearStackDataRequestsAreTheModelsToTheByte) {
  std::vector<std::string> expected;
  for (int layer = 0; layer < 2; ++layer) {
    expected.push_back("alloc 4194304");  // 1024 x 1024 float32
    expected.push_back("alloc 4096");     // 1024 float32
  }
  expected.push_back("mark after-weights");
  expected.push_back("alloc 262144");  // 64 x 1024 float32
  expected.push_back("mark after-input");
  std::vector<std::string> got = requests_of(
      "linear-stack", R"({"layers": 2, "width": 1024, "batch": 64, "modes": ["no_grad"]})");
  ASSERT_GE(got.size(), expected.size()) << "recorded:\n" << joined(got);
  EXPECT_EQ(std::vector<std::string>(got.begin(), got.begin() + expected.size()), expected)
      << "recorded:\n"
      << joined(got);
}

TEST_F(TorchBackends, TempThenDeleteProgramKeeps20MiBForA3_8MiBTensor) {
  CellResult c = ok_cell("torch-native", "torch-temp-then-delete");
  EXPECT_EQ(*at(c, "after-temp").allocated, 2u * 4000256);
  EXPECT_EQ(*at(c, "after-del-temp").reserved, 20u * MiB);
  EXPECT_EQ(*at(c, "after-empty-cache").allocated, 4000256u);  // 3.8 MiB
  EXPECT_EQ(*at(c, "after-empty-cache").reserved, 20u * MiB);  // 20.0 MiB
  EXPECT_EQ(*at(c, "after-del-x-empty-cache").reserved, 0u);
  expect_attribution_known(c);
  print_attribution(c);
}

TEST_F(TorchBackends, ToHostThenDeleteFreesTheDeviceOnlyAtEmptyCache) {
  CellResult c = ok_cell("torch-native", "torch-to-host-then-delete");
  const std::uint64_t t = 377487360;
  EXPECT_EQ(*at(c, "after-to-host").allocated, t) << "x.cpu() copies; the device tensor lives on";
  EXPECT_GE(i64(at(c, "after-to-host").host_rss) - i64(at(c, "after-to-device").host_rss),
            350 * MiB);
  EXPECT_EQ(*at(c, "after-del-device").allocated, 0u);
  EXPECT_EQ(*at(c, "after-del-device").reserved, t) << "del caches the block";
  EXPECT_EQ(*at(c, "after-empty-cache").reserved, 0u);
  EXPECT_NEAR(at(c, "after-empty-cache").device_used_delta,
              at(c, "after-to-device").device_used_delta - i64(t), kGranule);
  EXPECT_GE(i64(at(c, "after-empty-cache").host_rss) - i64(at(c, "after-del-host").host_rss),
            350 * MiB);
  expect_attribution_known(c);
  print_attribution(c);
}

// docs/design.md, through Python: peak allocated 621.1 MiB with grad, 573.1 MiB under no_grad. Both
// are weights (512.125 MiB) + input (8 MiB) + cuBLAS workspace + activations (8 MiB each): all
// eight kept for backward with grad, two at a time without, hence exactly 48 MiB between them.
TEST_F(TorchBackends, LinearStackNoGradPeaksBelowGrad) {
  CellResult c = ok_cell("torch-native", "torch-linear-stack");
  expect_attribution_known(c);
  print_attribution(c);
  const auto grad = i64(*at(c, "grad:peak").allocated);
  const auto no_grad = i64(*at(c, "no_grad:peak").allocated);
  const auto inference = i64(*at(c, "inference:peak").allocated);
  EXPECT_LT(no_grad, grad);
  EXPECT_LE(inference, no_grad);
  EXPECT_NEAR(grad - no_grad, 48 * MiB, MiB / 10);
  EXPECT_LE(*at(c, "no_grad:peak").reserved, *at(c, "grad:peak").reserved);
  // The program's own live bytes at the peaks: 8 vs 2 activations over weights + input.
  EXPECT_EQ(i64(at(c, "grad:peak").requested) - i64(at(c, "no_grad:peak").requested), 48 * MiB);
  // Dropping the output frees the graph: back to weights + input + workspace.
  EXPECT_EQ(*at(c, "grad:after-drop-output").allocated, *at(c, "after-cublas-init").allocated);
  EXPECT_EQ(*at(c, "after-free-release").allocated,
            *at(c, "after-cublas-init").allocated - at(c, "after-cublas-init").requested)
      << "what stays allocated at the end is the cuBLAS workspace";
}

// The same programs over other device backends, through PyTorch's pluggable allocator
// (docs/torch.md): torch caches nothing there, so what a `del` leaves is the backend's doing.
TEST_F(TorchBackends, ProgramsOverCudaMallocGiveMemoryBackAtDel) {
  CellResult c = ok_cell("cuda-malloc", "torch-seed-000");
  ASSERT_TRUE(c.program_allocator.has_value());
  EXPECT_EQ(c.program_allocator->allocator, "pluggable");
  EXPECT_EQ(c.program_allocator->cache_layer, "backend");
  const std::uint64_t t = 377487360;
  EXPECT_GE(*at(c, "single:after-alloc").allocated, t);
  // torch-native keeps all 360 MiB reserved here (Seed000ProgramMatchesThePythonFiguresToTheByte);
  // cudaFree gives them back at the del.
  EXPECT_LT(*at(c, "single:after-free-only").reserved, MiB);
  EXPECT_NEAR(at(c, "single:after-free-only").device_used_delta,
              at(c, "after-context").device_used_delta, kGranule);
  EXPECT_NEAR(
      at(c, "huge:after-alloc").device_used_delta - at(c, "huge:after-free-only").device_used_delta,
      4096 * MiB, kGranule);
}

TEST_F(TorchBackends, ProgramsOverRmmPoolKeepThePoolAfterEmptyCache) {
  Availability a = resolve_backend("rmm-pool", "").availability();
  if (!a.available) GTEST_SKIP() << "rmm-pool cannot run here: " << a.reason;
  CellResult c = ok_cell("rmm-pool", "torch-seed-000");
  ASSERT_TRUE(c.program_allocator.has_value());
  EXPECT_EQ(c.program_allocator->cache_layer, "backend");
  // empty_cache() is RMM's release, which a pool does not have: the 4 GiB stay with the pool.
  EXPECT_EQ(*at(c, "huge:after-free-release").allocated, *at(c, "after-context").allocated);
  EXPECT_GE(*at(c, "huge:after-free-release").reserved, 4096u * MiB);
  EXPECT_GE(at(c, "huge:after-free-release").device_used_delta, 4096 * MiB - kGranule);
}

TEST_F(TorchBackends, ProgramsOverCudaAsyncRetainKeepThePoolUntilEmptyCache) {
  CellResult c = ok_cell("cuda-async-retain", "torch-seed-000");
  const std::uint64_t t = 377487360;
  EXPECT_GE(*at(c, "single:after-free-only").reserved, t) << "the pool keeps the freed block";
  EXPECT_LT(*at(c, "single:after-free-release").reserved, t) << "empty_cache trims the pool";
}

// no_grad saves the same six activations whichever allocator is beneath.
TEST_F(TorchBackends, LinearStackOverCudaMallocSavesTheSameUnderNoGrad) {
  CellResult c = ok_cell("cuda-malloc", "torch-linear-stack");
  const auto grad = i64(*at(c, "grad:peak").allocated);
  const auto no_grad = i64(*at(c, "no_grad:peak").allocated);
  EXPECT_NEAR(grad - no_grad, 48 * MiB, MiB / 10);
  EXPECT_EQ(i64(at(c, "grad:peak").requested) - i64(at(c, "no_grad:peak").requested), 48 * MiB);
}

// The absolute Python peaks in docs/design.md (621.1 MiB with grad, 573.1 no_grad) are not
// asserted: on the H200 this program peaks at 617.125 / 569.125 MiB, a constant 3.975 MiB below
// them in both modes, while the gap the seeds care about (48 MiB, asserted above) agrees. The
// constant is state of the Python measurement's process that the C++ program does not recreate; see
// docs/torch.md.

// torch-gc collects cached blocks before it asks the driver for more, once reserved passes its
// threshold (0.6 x the 0.9 fraction); torch-native keeps its cache and allocates on top.
TEST_F(TorchBackends, GcReturnsTheCacheBeforeAllocatingNative) {
  CellResult native = ok_cell("torch-native", "torch-gc-pressure");
  CellResult gc = ok_cell("torch-gc", "torch-gc-pressure");
  for (const CellResult* c : {&native, &gc}) print_attribution(*c);
  const std::uint64_t cached = *at(native, "after-free-only").reserved;
  EXPECT_GE(*at(native, "after-new-alloc").reserved,
            cached + at(native, "after-new-alloc").requested);
  EXPECT_LT(*at(gc, "after-new-alloc").reserved, *at(gc, "after-free-only").reserved);
  EXPECT_EQ(*at(gc, "after-free-release").reserved, 0u);
}

// CUDA_MODULE_LOADING=EAGER loads every kernel of LibTorch's libraries up front (docs/design.md: a
// torch process holds 612 MiB LAZY, 1252 MiB EAGER); the cell records the setting.
// memrel run: a torch program over a backend of another family forks from a zygote that has
// loaded LibTorch too (BackendFamily::preload_program), so the cell loads nothing; the backend's
// other cells fork from its plain zygote; the bytes are those of cells started by exec.
TEST_F(TorchBackends, ProgramCellsOverAnotherFamilyForkFromAZygoteThatLoadedLibTorch) {
  auto run = [&](const std::string& name, const std::string& extra) {
    std::string out = dir_.file(name);
    auto r = testing::run_command(testing::memrel_command(
        "run -b cuda-malloc -w single-large,torch-seed-000 -o '" + out + "' " + extra));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("no zygote"), std::string::npos) << r.output;
    return read_run_file(out);
  };
  RunResults warm = run("warm.json", "");
  RunResults cold = run("cold.json", "--zygote none");
  ASSERT_EQ(warm.cells.size(), 2u);
  ASSERT_EQ(cold.cells.size(), 2u);
  for (std::size_t i = 0; i < warm.cells.size(); ++i) {
    const CellResult &w = warm.cells[i], &c = cold.cells[i];
    SCOPED_TRACE(w.backend + " x " + w.workload);
    ASSERT_EQ(w.status, "ok") << w.reason;
    ASSERT_EQ(c.status, "ok") << c.reason;
    ASSERT_TRUE(w.timing && c.timing);
    EXPECT_EQ(w.timing->started_by, "zygote");
    // A dlopen of the plugin its zygote had loaded still takes its microsecond (753 ns on the
    // H200, where loading it is 0.3-0.4 s).
    EXPECT_LT(w.timing->library_load_ns, 1'000'000u) << "its zygote had loaded LibTorch";
    if (w.workload == "torch-seed-000") {
      EXPECT_GT(c.timing->library_load_ns, 0u) << "an exec'd cell loads LibTorch itself";
    }
    ASSERT_EQ(w.marks.size(), c.marks.size());
    for (std::size_t m = 0; m < w.marks.size(); ++m) {
      EXPECT_EQ(w.marks[m].at.requested, c.marks[m].at.requested) << w.marks[m].label;
      EXPECT_EQ(w.marks[m].at.allocated, c.marks[m].at.allocated) << w.marks[m].label;
      EXPECT_EQ(w.marks[m].at.reserved, c.marks[m].at.reserved) << w.marks[m].label;
      EXPECT_NEAR(w.marks[m].at.device_used_delta, c.marks[m].at.device_used_delta, kGranule)
          << w.marks[m].label;
    }
  }
}

TEST_F(TorchBackends, EagerModuleLoadingCostsHundredsOfMiB) {
  CellResult lazy = ok_cell("torch-native", "single-large", "CUDA_MODULE_LOADING=LAZY");
  CellResult eager = ok_cell("torch-native", "single-large", "CUDA_MODULE_LOADING=EAGER");
  EXPECT_EQ(lazy.setup.environment.at("CUDA_MODULE_LOADING"), "LAZY");
  EXPECT_EQ(eager.setup.environment.at("CUDA_MODULE_LOADING"), "EAGER");
  expect_attribution_known(lazy);
  expect_attribution_known(eager);
  print_attribution(lazy);
  print_attribution(eager);
  // Wherever the driver charges the modules (context or init), it is done by the first mark.
  auto beyond_reserved = [](const CellResult& c) {
    const Snapshot& s = at(c, "after-alloc");
    return i64(*s.process_used) - i64(*s.reserved);
  };
  EXPECT_GT(beyond_reserved(eager) - beyond_reserved(lazy), 256 * MiB);
}

}  // namespace
}  // namespace memrel
