// rmm-pool, rmm-arena, rmm-binning, rmm-async: RAPIDS RMM's memory resources as memrel backends.
//
// Each is RMM's own resource, built the way RMM's own benchmarks build it
// (cpp/benchmarks/random_allocations), under RMM's statistics_resource_adaptor, so that
// "allocated" is RMM's accounting, not memrel's. Requests go to a non-blocking stream of the
// backend's own, as stream-ordered allocations (RMM's normal use); synchronize() waits for it.
//
// What release() can do differs, and that difference is what users come to see:
// - rmm-pool (pool_memory_resource over cudaMalloc, initial size 0, so it grows on demand):
//   RMM keeps every block it took from the device until the pool is destroyed; it offers no
//   call that gives free blocks back while it lives. release() is a no-op. Reserved: pool_size().
// - rmm-arena (arena_memory_resource over cudaMalloc): the global arena takes half of the free
//   device memory at construction (RMM's default; here rounded down to a whole GiB, so that it
//   does not follow the driver's few KiB), reserved from the start; nothing is given
//   back while it lives. release() is a no-op. Reserved: the arena's size.
// - rmm-binning (binning_memory_resource over a pool, bins 2^18..2^22 bytes, as RMM's
//   benchmark builds it): small requests from fixed-size bins, the rest from the pool; both take
//   memory from the pool, which keeps it. release() is a no-op. Reserved: the pool's size.
// - rmm-async (cuda_async_memory_resource: the driver's stream-ordered pool, RMM's defaults):
//   release() synchronises, then trims the pool to nothing (cudaMemPoolTrimTo). Reserved: the
//   pool's ReservedMemCurrent.
//
// C++20: RMM 26.10's headers need it; only this file includes them.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <rmm/aligned.hpp>
#include <rmm/error.hpp>
#include <rmm/mr/arena_memory_resource.hpp>
#include <rmm/mr/binning_memory_resource.hpp>
#include <rmm/mr/cuda_async_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/logging_resource_adaptor.hpp>
#include <rmm/mr/pool_memory_resource.hpp>
#include <rmm/mr/statistics_resource_adaptor.hpp>

#include "allocators/rmm/rmm_backends.hpp"
#include "platform/cuda_error.hpp"

namespace memrel {
namespace {

// RMM's benchmark (random_allocations) bins: 2^18 (256 KiB) .. 2^22 (4 MiB).
constexpr std::int8_t kMinBinExponent = 18;
constexpr std::int8_t kMaxBinExponent = 22;

using Resource = cuda::mr::any_resource<cuda::mr::device_accessible>;

// RMM's own allocation log around the resource when MEMREL_RMM_LOG_FILE names a file: the CSV of
// logging_resource_adaptor that RMM's replay benchmark and `memrel trace import` read
// (scripts/record-traces records one). Flushed at every event, so a killed cell's log is whole.
Resource logged_if_asked(Resource resource) {
  const char* file = std::getenv("MEMREL_RMM_LOG_FILE");
  if (file == nullptr || *file == '\0') return resource;
  return rmm::mr::logging_resource_adaptor{std::move(resource), std::string(file),
                                           /*auto_flush=*/true};
}

// One backend: the resource, RMM's statistics around it, and how this resource reports its
// reservation and releases it.
class RmmAllocator : public Allocator {
 public:
  RmmAllocator(Resource resource, std::function<std::optional<std::uint64_t>()> reserved,
               std::function<void()> release)
      : statistics_(logged_if_asked(std::move(resource))),
        reserved_(std::move(reserved)),
        release_(std::move(release)) {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }

  ~RmmAllocator() override {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  void* allocate(std::size_t bytes) override {
    try {
      return statistics_.allocate(cuda::stream_ref{stream_}, bytes, rmm::CUDA_ALLOCATION_ALIGNMENT);
    } catch (const rmm::out_of_memory& e) {
      throw OutOfMemory(bytes, e.what());
    } catch (const std::bad_alloc& e) {
      throw OutOfMemory(bytes, e.what());
    }
  }

  void deallocate(void* p, std::size_t bytes) override {
    statistics_.deallocate(cuda::stream_ref{stream_}, p, bytes, rmm::CUDA_ALLOCATION_ALIGNMENT);
  }

  void release() override {
    synchronize();
    release_();
  }

  void synchronize() override {
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  void fill(void* p, std::size_t bytes) override {
    check_cuda(cudaMemsetAsync(p, 0x5a, bytes, stream_), "cudaMemsetAsync");
    synchronize();
  }

  Usage usage() const override {
    return {static_cast<std::uint64_t>(statistics_.get_bytes_counter().value), reserved_()};
  }

  MemorySpace space() const override { return MemorySpace::kDevice; }

 private:
  rmm::mr::statistics_resource_adaptor statistics_;
  std::function<std::optional<std::uint64_t>()> reserved_;
  std::function<void()> release_;
  cudaStream_t stream_ = nullptr;
};

void nothing_to_release() {}

// Creates the CUDA context before RMM's constructors need it, and says "no device" plainly.
void require_device() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    throw BackendUnavailable("no CUDA device: RMM's resources need one");
  }
  check_cuda(cudaFree(nullptr), "cudaFree(0) (context creation)");
}

}  // namespace

std::unique_ptr<Allocator> make_rmm_pool(std::uint64_t initial_bytes,
                                         std::optional<std::uint64_t> maximum_bytes) {
  require_device();
  rmm::mr::pool_memory_resource pool{rmm::mr::cuda_memory_resource{}, initial_bytes, maximum_bytes};
  return std::make_unique<RmmAllocator>(
      pool, [pool] { return std::optional<std::uint64_t>(pool.pool_size()); }, nothing_to_release);
}

// The arena's size is a multiple of this (make_rmm_arena).
constexpr std::size_t kArenaGranule = std::size_t{1} << 30;
constexpr std::size_t kSmallArenaGranule = std::size_t{2} << 20;

std::unique_ptr<Allocator> make_rmm_arena() {
  require_device();
  // RMM's own default, made explicit so that the reservation is known: half the free memory,
  // rounded down to a whole GiB (2 MiB on a device with less than 2 GiB free). To the byte, it
  // followed what the driver held before the cell: two H100 runs, 64 KiB apart in the device's
  // use, differed by 32 KiB in every reserved figure, 12 byte "regressions" between two machines
  // of one kind.
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t half = free_bytes / 2;
  const std::size_t granule = half >= kArenaGranule ? kArenaGranule : kSmallArenaGranule;
  const std::size_t arena_bytes = half / granule * granule;
  rmm::mr::arena_memory_resource arena{rmm::mr::cuda_memory_resource{}, arena_bytes};
  return std::make_unique<RmmAllocator>(
      arena, [arena_bytes] { return std::optional<std::uint64_t>(arena_bytes); },
      nothing_to_release);
}

std::unique_ptr<Allocator> make_rmm_binning() {
  require_device();
  rmm::mr::pool_memory_resource pool{rmm::mr::cuda_memory_resource{}, 0};
  rmm::mr::binning_memory_resource binning{pool, kMinBinExponent, kMaxBinExponent};
  return std::make_unique<RmmAllocator>(
      binning, [pool] { return std::optional<std::uint64_t>(pool.pool_size()); },
      nothing_to_release);
}

std::unique_ptr<Allocator> make_rmm_async() {
  require_device();
  rmm::mr::cuda_async_memory_resource async{};
  cudaMemPool_t handle = async.pool_handle();
  return std::make_unique<RmmAllocator>(
      async,
      [handle] {
        std::uint64_t reserved = 0;
        check_cuda(cudaMemPoolGetAttribute(handle, cudaMemPoolAttrReservedMemCurrent, &reserved),
                   "cudaMemPoolGetAttribute");
        return std::optional<std::uint64_t>(reserved);
      },
      [handle] { check_cuda(cudaMemPoolTrimTo(handle, 0), "cudaMemPoolTrimTo"); });
}

}  // namespace memrel
