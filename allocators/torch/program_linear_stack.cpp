// linear-stack: a stack of Linear layers, forward with autograd on, under no_grad and under
// inference_mode; the peak each mode reaches, then release.
//
// The model is docs/design.md's: 8 x Linear(4096, 4096), batch 512, float32, run as nn.Sequential
// runs it (y = at::linear(y, W, b) layer after layer; the same addmm and cuBLAS calls).
//   grad       autograd records the graph: each layer's input is saved for backward, so every
//              activation stays live until the output (and with it the graph) is dropped;
//   no_grad    at::NoGradGuard, torch.no_grad(): an activation is freed as soon as the next
//              layer has consumed it, so at most two are live;
//   inference  c10::InferenceMode, torch.inference_mode(): as no_grad, and no version counters
//              or view tracking either (no memory difference expected for this model).
// Peak allocated = weights (8 x 64 MiB + 8 x 16 KiB) + input (8 MiB) + the cuBLAS workspace
// (held from the first matmul on) + live activations (8 MiB each: 8 with grad, 2 without).
// docs/design.md, through Python on the H200: 621.1 MiB with grad, 573.1 under no_grad; the 48 MiB
// between them is six activations.
//
// Marks (requested = bytes of the tensors the program holds: weights, input, activations):
//   after-weights, after-input, after-cublas-init (one layer run once under no_grad: cuBLAS's
//   handle, workspace and first kernels load here, as in any torch program's first matmul);
//   per mode M: M:before (cache emptied), M:peak (allocated/reserved are getDeviceStats()
//   peaks since M:before; requested is the program's own peak), M:after-forward,
//   M:after-drop-output, M:after-release;
//   after-free-release (weights and input freed, cache emptied; the cuBLAS workspace stays
//   allocated: the handle pool keeps it and emptyCache does not free live blocks).
#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <optional>

#include "allocators/torch/programs.hpp"

namespace memrel::torch_programs {
namespace {

struct Layer {
  at::Tensor weight, bias;
};

}  // namespace

void run_linear_stack(ProgramRun& run) {
  const std::int64_t layers = run.integer("layers", 8, 1, 1024);
  const std::int64_t width = run.integer("width", 4096, 1, 65536);
  const std::int64_t batch = run.integer("batch", 512, 1, 1 << 20);
  const std::vector<std::string> modes =
      run.choices("modes", {"grad", "no_grad", "inference"}, {"grad", "no_grad", "inference"});
  run.finish_arguments();

  // nn.Linear's initialisation, as model.cuda() leaves it: the allocator sees one allocation per
  // parameter, in the same order and of the same size as the CPU's uniform_ and .cuda() made.
  // The values are drawn on the device, in place (uniform_ allocates nothing): on the CPU, 512 MiB
  // of them took about a second a cell and measured nothing (issue 25).
  const double bound = 1.0 / std::sqrt(static_cast<double>(width));
  const auto on_device = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA);
  std::vector<Layer> stack;
  std::uint64_t weight_bytes = 0;
  for (std::int64_t i = 0; i < layers; ++i) {
    Layer l;
    l.weight = at::empty({width, width}, on_device).uniform_(-bound, bound).requires_grad_(true);
    l.bias = at::empty({width}, on_device).uniform_(-bound, bound).requires_grad_(true);
    weight_bytes += bytes_of(l.weight) + bytes_of(l.bias);
    stack.push_back(std::move(l));
  }
  run.mark("after-weights", weight_bytes);

  at::Tensor input = at::empty({batch, width}, on_device).normal_();
  const std::uint64_t base = weight_bytes + bytes_of(input);
  run.mark("after-input", base);

  {
    at::NoGradGuard no_grad;
    at::Tensor warm = at::linear(input, stack[0].weight, stack[0].bias);
    run.synchronize();
  }
  run.mark("after-cublas-init", base);

  for (const std::string& mode : modes) {
    run.empty_cache();  // each mode starts from an empty cache: its reserved peak is its own
    run.mark(mode + ":before", base);
    run.reset_peaks();

    std::optional<at::NoGradGuard> no_grad;
    std::optional<c10::InferenceMode> inference;
    if (mode == "no_grad") no_grad.emplace();
    if (mode == "inference") inference.emplace();
    const bool keeps_graph = mode == "grad";

    at::Tensor y = input;
    std::uint64_t held = 0, peak_held = 0;  // activation bytes the program (or its graph) holds
    for (std::int64_t i = 0; i < layers; ++i) {
      at::Tensor next = at::linear(y, stack[i].weight, stack[i].bias);
      held += bytes_of(next);
      peak_held = std::max(peak_held, held);
      // Without a graph, replacing y frees the previous activation (never the input).
      if (!keeps_graph && i > 0) held -= bytes_of(y);
      y = std::move(next);
    }
    run.mark_peak(mode + ":peak", base + peak_held);
    run.mark(mode + ":after-forward", base + held);
    y = at::Tensor();  // drops the output and, with grad, the graph and its saved activations
    no_grad.reset();
    inference.reset();
    run.mark(mode + ":after-drop-output", base);
    run.empty_cache();
    run.mark(mode + ":after-release", base);
  }

  stack.clear();
  input = at::Tensor();
  run.empty_cache();
  run.mark("after-free-release", 0);
}

}  // namespace memrel::torch_programs
