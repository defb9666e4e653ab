// to-host-then-delete: seed 001's first method, "move it off the GPU, then delete it".
//
//   x = torch.randn(120, 3, 512, 512).cuda(); y = x.cpu(); del x; torch.cuda.empty_cache(); del y
//
// (The seed writes `x = x.cpu()`, which is the same: the rebinding drops the device tensor.)
// Moving a tensor to the host frees nothing on the device by itself: the device copy lives
// until its last reference goes, and then its block stays cached until empty_cache. The host
// copy shows in every mark's host_rss (pageable memory from the CPU allocator; at 360 MiB it
// is an mmap that goes back to the kernel at del).
//
// Marks (requested = bytes of the live device tensors; the host tensor is in host_rss):
// after-to-device, after-to-host, after-del-device, after-empty-cache, after-del-host.
#include <ATen/ATen.h>

#include "allocators/torch/programs.hpp"

namespace memrel::torch_programs {

void run_to_host_then_delete(ProgramRun& run) {
  const std::vector<std::int64_t> shape = run.shape("shape", {120, 3, 512, 512});
  run.finish_arguments();

  // randn(shape).cuda() as the allocator sees it (one request of the tensor's bytes), generated on
  // the device: the CPU's randn of 360 MiB took about a second a cell and measured nothing.
  at::Tensor x =
      at::empty(shape, at::TensorOptions().dtype(at::kFloat).device(at::kCUDA)).normal_();
  run.mark("after-to-device", bytes_of(x));
  at::Tensor y = x.cpu();
  run.mark("after-to-host", bytes_of(x));
  x = at::Tensor();
  run.mark("after-del-device", 0);
  run.empty_cache();
  run.mark("after-empty-cache", 0);
  y = at::Tensor();
  run.mark("after-del-host", 0);
}

}  // namespace memrel::torch_programs
