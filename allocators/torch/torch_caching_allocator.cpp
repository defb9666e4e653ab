#include "allocators/torch/torch_caching_allocator.hpp"

#include <ATen/Context.h>
#include <c10/core/AllocatorConfig.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "allocators/torch/programs.hpp"

namespace memrel {
namespace {

namespace cca = c10::cuda::CUDACachingAllocator;
using c10::CachingAllocator::AcceleratorAllocatorConfig;
using c10::CachingAllocator::StatType;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr c10::DeviceIndex kDevice = 0;  // DeviceProbe watches device 0
constexpr std::size_t kAggregate = static_cast<std::size_t>(StatType::AGGREGATE);
// Above the 1 MiB small-pool limit, so the probe lands in the large pool, where workloads'
// blocks go and where expandable segments map 20 MiB pages.
constexpr std::size_t kProbeBytes = 2 * kMiB;

std::string env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v ? "'" + std::string(v) + "'" : "(unset)";
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string split_size(std::size_t bytes) {
  return bytes == std::numeric_limits<std::size_t>::max() ? "unlimited"
                                                          : std::to_string(bytes / kMiB) + " MiB";
}

// c10::Error's what() carries a C++ backtrace; a cell's reason is one line.
[[noreturn]] void rethrow_torch_error(const c10::Error& e, const std::string& what) {
  throw std::runtime_error(what + ": " + e.what_without_backtrace());
}

}  // namespace

TorchCachingAllocator::TorchCachingAllocator(TorchConfiguration configuration)
    : variant_(std::move(configuration)) {
  try {
    if (!at::globalContext().hasCUDA()) {
      throw BackendUnavailable("LibTorch sees no CUDA device (c10::cuda::device_count() is " +
                               std::to_string(c10::cuda::device_count()) + ")");
    }
    c10::cuda::set_device(kDevice);
    at::globalContext().lazyInitDevice(at::kCUDA);
    verify_configuration();
    synchronize();
  } catch (const c10::Error& e) {
    rethrow_torch_error(e, variant_.name + " initialisation");
  }
}

void TorchCachingAllocator::verify_configuration() {
  std::vector<std::string> wrong;
  auto expect = [&wrong](const std::string& what, const std::string& expected,
                         const std::string& found) {
    if (expected != found) wrong.push_back(what + " is " + found + ", expected " + expected);
  };
  std::string conf = !variant_.alloc_conf.empty() ? "'" + variant_.alloc_conf + "'" : "(unset)";
  expect("PYTORCH_ALLOC_CONF", conf, env_or_unset("PYTORCH_ALLOC_CONF"));
  expect("PYTORCH_CUDA_ALLOC_CONF", conf, env_or_unset("PYTORCH_CUDA_ALLOC_CONF"));
  expect("the allocator backend (CUDAAllocator::name())", variant_.allocator_name,
         cca::get()->name());

  if (std::string(variant_.allocator_name) == "native" && cca::get()->name() == "native") {
    // What PyTorch parsed. Not CUDAAllocatorConfig::expandable_segments(): that inline accessor
    // returns false in any translation unit built without PYTORCH_C10_DRIVER_API_SUPPORTED,
    // which LibTorch's CMake package does not export.
    expect("expandable_segments", variant_.expandable_segments ? "True" : "False",
           AcceleratorAllocatorConfig::use_expandable_segments() ? "True" : "False");
    expect("garbage_collection_threshold", number(variant_.garbage_collection_threshold),
           number(AcceleratorAllocatorConfig::garbage_collection_threshold()));
    expect("max_split_size",
           split_size(variant_.max_split_size_mb ? variant_.max_split_size_mb * kMiB
                                                 : std::numeric_limits<std::size_t>::max()),
           split_size(AcceleratorAllocatorConfig::max_split_size()));
    // A single value applies to every size interval; 0 leaves rounding off.
    expect("roundup_power2_divisions", std::to_string(variant_.roundup_power2_divisions),
           std::to_string(AcceleratorAllocatorConfig::roundup_power2_divisions(kProbeBytes)));
    // What the device allocator applied: its memory limit and its own copy of max_split_size.
    expect("the per-process memory fraction", number(variant_.memory_fraction),
           number(cca::getMemoryFraction(kDevice)));
    expect("the device allocator's max_split_size",
           split_size(variant_.max_split_size_mb ? variant_.max_split_size_mb * kMiB
                                                 : std::numeric_limits<std::size_t>::max()),
           split_size(static_cast<std::size_t>(device_stats().max_split_size)));
  }

  // The first allocation, as a torch program's first CUDA tensor makes it, so that its one-off
  // costs land in backend init rather than in the workload's first step: the cudaMallocAsync
  // backend creates its stream pool and sets the device pool's release threshold (UINT64_MAX)
  // here. For the native allocator it is also the behaviour check: does a fresh block really
  // come from an expandable (cuMemMap) segment?
  const bool native = cca::get()->name() == "native";
  void* p = cca::raw_alloc(kProbeBytes);
  if (native) {
    bool expandable = false;
    for (const auto& segment : cca::snapshot({0, 0}, /*include_traces=*/false).segments) {
      auto base = reinterpret_cast<std::uintptr_t>(p);
      if (base >= segment.address && base < segment.address + segment.total_size) {
        expandable = segment.is_expandable;
      }
    }
    if (std::string(variant_.allocator_name) == "native") {
      expect("a probe block's segment",
             variant_.expandable_segments ? "expandable" : "not expandable",
             expandable ? "expandable" : "not expandable");
    }
  }
  cca::raw_delete(p);
  synchronize();
  cca::emptyCache();
  // The workload's figures start from zero: no probe in num_device_alloc, no peak from it.
  // (cudaMallocAsync keeps no accumulated counts: resetting them there only warns.)
  if (native) cca::resetAccumulatedStats(kDevice);
  cca::resetPeakStats(kDevice);

  if (!wrong.empty()) {
    std::string message = variant_.name + " does not run its configuration: ";
    for (std::size_t i = 0; i < wrong.size(); ++i) message += (i ? "; " : "") + wrong[i];
    message += ". PyTorch parsed the settings '" +
               AcceleratorAllocatorConfig::last_allocator_settings() +
               "'. The runner starts each cell with the variant's PYTORCH_ALLOC_CONF and "
               "PYTORCH_CUDA_ALLOC_CONF; a cell started by hand (memrel cell) must set them: " +
               conf;
    throw std::runtime_error(message);
  }
}

void* TorchCachingAllocator::allocate(std::size_t bytes) {
  try {
    return cca::raw_alloc(bytes);
  } catch (const c10::OutOfMemoryError& e) {
    throw OutOfMemory(bytes, e.what_without_backtrace());
  } catch (const c10::Error& e) {
    rethrow_torch_error(e, "raw_alloc(" + std::to_string(bytes) + ")");
  }
}

void TorchCachingAllocator::deallocate(void* p, std::size_t) {
  // raw_alloc(0) gives nullptr, which the native allocator's raw_delete ignores and the
  // cudaMallocAsync one refuses with an internal assert (torch 2.11, seen on the H200 through the
  // conformance suite): nothing was allocated, so nothing is freed.
  if (p == nullptr) return;
  try {
    cca::raw_delete(p);
  } catch (const c10::Error& e) {
    rethrow_torch_error(e, "raw_delete");
  }
}

void TorchCachingAllocator::release() {
  try {
    cca::emptyCache();
  } catch (const c10::Error& e) {
    rethrow_torch_error(e, "emptyCache");
  }
}

void TorchCachingAllocator::synchronize() { c10::cuda::device_synchronize(); }

void TorchCachingAllocator::fill(void* p, std::size_t bytes) {
  c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(kDevice);
  C10_CUDA_CHECK(cudaMemsetAsync(p, 0x5a, bytes, stream.stream()));
  stream.synchronize();
}

c10::CachingDeviceAllocator::DeviceStats TorchCachingAllocator::device_stats() const {
  return cca::getDeviceStats(kDevice);
}

void TorchCachingAllocator::reset_peaks() { cca::resetPeakStats(kDevice); }

Usage TorchCachingAllocator::usage() const {
  auto stats = device_stats();
  return {static_cast<std::uint64_t>(stats.allocated_bytes[kAggregate].current),
          static_cast<std::uint64_t>(stats.reserved_bytes[kAggregate].current)};
}

Usage TorchCachingAllocator::peaks() const {
  auto stats = device_stats();
  return {static_cast<std::uint64_t>(stats.allocated_bytes[kAggregate].peak),
          static_cast<std::uint64_t>(stats.reserved_bytes[kAggregate].peak)};
}

std::map<std::string, std::int64_t> TorchCachingAllocator::detailed_stats() const {
  auto s = device_stats();
  std::map<std::string, std::int64_t> out;
  auto add = [&out](const std::string& name, const c10::CachingAllocator::Stat& stat) {
    out[name] = stat.current;
    out[name + "_peak"] = stat.peak;
  };
  add("allocated_bytes", s.allocated_bytes[kAggregate]);
  add("reserved_bytes", s.reserved_bytes[kAggregate]);
  add("requested_bytes", s.requested_bytes[kAggregate]);
  add("active_bytes", s.active_bytes[kAggregate]);
  add("inactive_split_bytes", s.inactive_split_bytes[kAggregate]);
  add("segment", s.segment[kAggregate]);
  add("allocation", s.allocation[kAggregate]);
  out["num_device_alloc"] = s.num_device_alloc;
  out["num_device_free"] = s.num_device_free;
  out["num_alloc_retries"] = s.num_alloc_retries;
  out["num_ooms"] = s.num_ooms;
  out["num_sync_all_streams"] = s.num_sync_all_streams;
  return out;
}

void TorchCachingAllocator::run_program(const std::string& name, const std::string& args_json,
                                        ProgramContext& context) {
  try {
    torch_programs::run(name, args_json, *this, context);
  } catch (const c10::OutOfMemoryError& e) {
    throw OutOfMemory(0, "program " + name + ": " + e.what_without_backtrace());
  } catch (const c10::Error& e) {
    rethrow_torch_error(e, "program " + name);
  }
}

}  // namespace memrel
