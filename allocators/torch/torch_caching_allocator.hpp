// torch-*: PyTorch's CUDA caching allocator (c10::cuda::CUDACachingAllocator) in one of the
// configurations of allocators/torch/variants.hpp, the allocator every CUDA tensor of a torch
// program comes from.
//
// Initialisation: at::globalContext().lazyInitDevice(at::kCUDA), what a torch program's first
// CUDA tensor triggers (before it, raw_alloc fails with "Allocator not initialized for
// device"). Nothing else: cuBLAS and cuDNN load on first use, inside a program, so their cost
// shows in that program's marks, as in a real torch process. Then the configuration is checked
// against the variant (allocator name, parsed settings, and for the native allocator a probe
// allocation that shows whether segments really are expandable); a mismatch fails the cell.
// Allocation: raw_alloc / raw_delete on the current stream (the legacy default stream).
// Release: emptyCache(). Native: every cached segment without a live block goes back to the
// driver; a segment holding any live block stays whole (why 20 MiB stay for a 3.8 MiB tensor).
// cudaMallocAsync: synchronises, then trims the device's default pool to 0.
// Usage: getDeviceStats(0), allocated_bytes and reserved_bytes [AGGREGATE].current.
#pragma once

#include <c10/cuda/CUDACachingAllocator.h>

#include <cstdint>
#include <map>
#include <string>

#include "allocators/allocator.hpp"
#include "allocators/torch/program_allocator.hpp"
#include "allocators/torch/variants.hpp"

namespace memrel {

// Also the programs' allocator layer: torch's own cache is the one the programs see.
class TorchCachingAllocator : public Allocator, public ProgramAllocator {
 public:
  // Throws BackendUnavailable when torch sees no CUDA device, std::runtime_error when the
  // allocator does not run `variant`'s configuration.
  explicit TorchCachingAllocator(TorchConfiguration configuration);

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  void release() override;
  void synchronize() override;
  void fill(void* p, std::size_t bytes) override;
  Usage usage() const override;
  MemorySpace space() const override { return MemorySpace::kDevice; }
  // Runs a torch program on this allocator: torch's own cache is the one it sees.
  void run_program(const std::string& name, const std::string& args_json, ProgramContext& context);

  // ProgramAllocator: emptyCache, a device synchronisation, getDeviceStats().peak.
  void empty_cache() override { release(); }
  void wait_for_device() override { synchronize(); }
  void reset_peaks() override;
  Usage peaks() const override;

  c10::CachingDeviceAllocator::DeviceStats device_stats() const;

  // Every figure of getDeviceStats(0) memrel may want beyond allocated and reserved
  // (requested_bytes, active_bytes, num_device_alloc/free, num_alloc_retries...); the results
  // schema has no slot for them yet.
  std::map<std::string, std::int64_t> detailed_stats() const;

  const TorchConfiguration& configuration() const { return variant_; }

 private:
  void verify_configuration();

  const TorchConfiguration variant_;
};

}  // namespace memrel
