#include "allocators/torch/torch_over_backend.hpp"

#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/CUDAPluggableAllocator.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "allocators/torch/program_allocator.hpp"
#include "allocators/torch/programs.hpp"

namespace memrel {
namespace {

namespace cca = c10::cuda::CUDACachingAllocator;
namespace pluggable = torch::cuda::CUDAPluggableAllocator;

constexpr c10::DeviceIndex kDevice = 0;  // DeviceProbe watches device 0

class TorchOverBackend : public ProgramAllocator {
 public:
  explicit TorchOverBackend(Allocator& backend) : backend_(backend) {}

  Allocator& backend() const { return backend_; }

  // The pluggable allocator's alloc: the backend's allocate, then the peaks.
  void* allocate(std::size_t bytes) {
    if (bytes == 0) return nullptr;  // as cudaMalloc(0); torch never frees a null block
    std::lock_guard<std::mutex> lock(mutex_);
    void* p = backend_.allocate(bytes);
    // A stream-ordered backend (cuda-async, RMM) hands the block out on a stream of its own;
    // torch uses it on its stream, which is not ordered after that one: wait for it here.
    backend_.synchronize();
    Usage now = backend_.usage();
    raise(peaks_.allocated, now.allocated);
    raise(peaks_.reserved, now.reserved);
    return p;
  }

  // The pluggable allocator's free. Torch frees a tensor's block as soon as its last reference
  // dies, while kernels queued on torch's stream may still read it; torch's own allocator holds
  // such a block back with stream events, but a backend beneath may hand it out again at once
  // (on its own stream, or to the next request). So the device is waited for first: correct for
  // every backend, at a cost the program step's latency includes.
  void deallocate(void* p, std::size_t bytes) {
    if (p == nullptr) return;
    c10::cuda::device_synchronize();
    std::lock_guard<std::mutex> lock(mutex_);
    backend_.deallocate(p, bytes);
  }

  void empty_cache() override {
    std::lock_guard<std::mutex> lock(mutex_);
    backend_.release();
  }

  void wait_for_device() override {
    c10::cuda::device_synchronize();
    backend_.synchronize();
  }

  void reset_peaks() override {
    std::lock_guard<std::mutex> lock(mutex_);
    peaks_ = backend_.usage();
  }

  Usage peaks() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return peaks_;
  }

 private:
  static void raise(std::optional<std::uint64_t>& peak, const std::optional<std::uint64_t>& now) {
    if (now) peak = peak ? std::max(*peak, *now) : *now;
  }

  Allocator& backend_;
  mutable std::mutex mutex_;
  Usage peaks_;
};

// Made current once per process (PyTorch cannot swap an allocator that has allocated); kept for
// the life of the process, as torch keeps the pluggable allocator it was given.
TorchOverBackend& install(Allocator& backend) {
  static std::unique_ptr<TorchOverBackend> bridge;
  if (bridge) {
    if (&bridge->backend() != &backend) {
      throw std::runtime_error(
          "torch's allocator is already bound to another backend in this process");
    }
    return *bridge;
  }
  if (!at::globalContext().hasCUDA()) {
    throw BackendUnavailable("LibTorch sees no CUDA device (c10::cuda::device_count() is " +
                             std::to_string(c10::cuda::device_count()) + ")");
  }
  auto over = std::make_unique<TorchOverBackend>(backend);
  TorchOverBackend* b = over.get();
  auto custom = std::make_shared<pluggable::CUDAPluggableAllocator>(
      [b](std::size_t bytes, int, cudaStream_t) { return b->allocate(bytes); },
      [b](void* p, std::size_t bytes, int, cudaStream_t) { b->deallocate(p, bytes); });
  custom->set_reset_fn([b] { b->empty_cache(); });
  pluggable::changeCurrentAllocator(custom);
  c10::cuda::set_device(kDevice);
  // What a torch program's first CUDA tensor triggers; it calls the pluggable allocator's init.
  at::globalContext().lazyInitDevice(at::kCUDA);
  if (cca::get()->name() != "pluggable") {
    throw std::runtime_error("torch's current allocator is '" + cca::get()->name() +
                             "' after changeCurrentAllocator, expected 'pluggable'");
  }
  bridge = std::move(over);
  return *bridge;
}

}  // namespace

void run_torch_program_over(Allocator& backend, const std::string& name,
                            const std::string& args_json, ProgramContext& context) {
  try {
    torch_programs::run(name, args_json, install(backend), context);
  } catch (const c10::OutOfMemoryError& e) {
    throw OutOfMemory(0, "program " + name + ": " + e.what_without_backtrace());
  } catch (const c10::Error& e) {
    // c10::Error's what() carries a C++ backtrace; a cell's reason is one line.
    throw std::runtime_error("program " + name +
                             " over the backend: " + e.what_without_backtrace());
  }
}

}  // namespace memrel
