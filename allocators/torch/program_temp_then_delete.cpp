// temp-then-delete: seed 001's fourth method with real tensor ops.
//
//   x = torch.randn(1000, 1000).cuda(); temp = x * 2; del temp; torch.cuda.empty_cache()
//
// docs/design.md, through Python on the H200: after it, allocated 3.8 MiB, reserved 20.0 MiB. Both
// 4 000 000-byte tensors are large-pool requests (over 1 MiB) below 10 MiB, so the first gets
// a 20 MiB segment and the second is split from it; empty_cache can only return segments with
// no live block, and x still lives in this one.
//
// Marks (requested = bytes of the live tensors): after-x, after-temp, after-del-temp,
// after-empty-cache, after-del-x-empty-cache.
#include <ATen/ATen.h>

#include "allocators/torch/programs.hpp"

namespace memrel::torch_programs {

void run_temp_then_delete(ProgramRun& run) {
  const std::vector<std::int64_t> shape = run.shape("shape", {1000, 1000});
  run.finish_arguments();

  at::Tensor x = at::randn(shape).to(at::kCUDA);  // randn on the CPU, then .cuda(), as the seed
  run.mark("after-x", bytes_of(x));
  at::Tensor temp = x * 2;
  run.mark("after-temp", bytes_of(x) + bytes_of(temp));
  temp = at::Tensor();
  run.mark("after-del-temp", bytes_of(x));
  run.empty_cache();
  run.mark("after-empty-cache", bytes_of(x));
  x = at::Tensor();
  run.empty_cache();
  run.mark("after-del-x-empty-cache", 0);
}

}  // namespace memrel::torch_programs
