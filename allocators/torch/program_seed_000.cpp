// seed-000: the seed's four scripts in one process, step for step as docs/design.md records them
// through PyTorch's Python API on the H200 (the seed's 15 s sleeps are left out: every step
// here is synchronous, and the marks synchronise the device before probing).
//
//   context    torch.zeros(1, device='cuda'); del: what the measurement did first. The 4-byte
//              tensor takes a 512-byte block from a new 2 MiB small-pool segment, which stays
//              cached: allocated 0, reserved 2 MiB.
//   single     x = torch.randn(120,3,512,512).float().to('cuda')     360.0 / 362.0 MiB
//              torch.cuda.empty_cache()  (x alive: the 2 MiB goes)    360.0 / 360.0
//              del x                                                  0.0 / 360.0
//              torch.cuda.empty_cache()                               0.0 / 0.0
//   pair       two of them; empty_cache alive; del both, empty_cache  720 / 720, then 0 / 0
//   huge       randn(4,1024,512,512) (4 GiB); empty_cache alive;      4096 / 4096
//              del without empty_cache (the seed's last script)       0 / 4096
//              then empty_cache                                       0 / 0
// (allocated / reserved.) The seed's randn runs on the CPU and .to() copies; here the tensor is
// made on the device and filled there with normal_(), in place. The allocator sees the same
// requests either way: one allocation of exactly the tensor's size (a multiple of 2 MiB here, so
// no rounding), freed at the same moment. normal_() allocates nothing (PyTorch's
// distribution_nullary_kernel writes through a TensorIterator over the existing tensor; the
// generator's state is host-side unless a CUDA graph is registered), and the values were never
// measured. What it saves is the CPU's randn of 4 GiB, 9 to 12 s a cell on the H200 (issue 25).
// The fill launches a kernel where the copy launched none; its module is code, not the
// allocator's (tests/allocators/torch_gpu_test.cpp: SeedProgramRequestsAreTheSeedsToTheByte).
//
// Marks: after-context, then PART:after-alloc, PART:after-release-only, PART:after-free-only
// (single and huge), PART:after-free-release, for each part asked for.
#include <ATen/ATen.h>

#include "allocators/torch/programs.hpp"

namespace memrel::torch_programs {
namespace {

// randn(shape).float().to('cuda') as far as the allocator can tell: one request of the tensor's
// bytes.
at::Tensor seed_tensor(at::IntArrayRef shape) {
  return at::empty(shape, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA)).normal_();
}

}  // namespace

void run_seed_000(ProgramRun& run) {
  const bool context_tensor = run.boolean("context_tensor", true);
  const std::vector<std::string> parts =
      run.choices("parts", {"single", "pair", "huge"}, {"single", "pair", "huge"});
  run.finish_arguments();

  if (context_tensor) {
    at::Tensor one = at::zeros({1}, at::TensorOptions().device(at::kCUDA));
    run.synchronize();
  }
  run.mark("after-context", 0);

  for (const std::string& part : parts) {
    if (part == "single" || part == "huge") {
      at::Tensor x =
          part == "single" ? seed_tensor({120, 3, 512, 512}) : seed_tensor({4, 1024, 512, 512});
      const std::uint64_t live = bytes_of(x);
      run.mark(part + ":after-alloc", live);
      run.empty_cache();
      run.mark(part + ":after-release-only", live);
      x = at::Tensor();
      run.mark(part + ":after-free-only", 0);
      run.empty_cache();
      run.mark(part + ":after-free-release", 0);
    } else {
      at::Tensor x = seed_tensor({120, 3, 512, 512});
      at::Tensor y = seed_tensor({120, 3, 512, 512});
      const std::uint64_t live = bytes_of(x) + bytes_of(y);
      run.mark(part + ":after-alloc", live);
      run.empty_cache();
      run.mark(part + ":after-release-only", live);
      x = at::Tensor();
      y = at::Tensor();
      run.empty_cache();
      run.mark(part + ":after-free-release", 0);
    }
  }
}

}  // namespace memrel::torch_programs
