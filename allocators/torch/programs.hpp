// The torch programs: real tensor work through ATen that a torch-* backend runs for a workload
// step {"program": NAME, "args": {...}}. One program per file, program_<name>.cpp; the table of
// them is in programs.cpp. Programs the other backends cannot run: the cell records those as
// unavailable.
//
// A program reports through marks: each one is a full probe (allocator, driver, NVML, RSS) at a
// named moment, with `requested` = the bytes of the tensors the program itself holds live then.
// What the allocator holds beyond them (rounding, cached blocks, the cuBLAS workspace) is the
// overhead; what NVML charges beyond the context, LibTorch's initialisation and the reserved
// bytes is the remainder (kernels loaded on first use, library handles).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "allocators/framework_program.hpp"
#include "allocators/torch/program_allocator.hpp"

namespace memrel::torch_programs {

// One run of one program: its arguments, the allocator, and the cell's probe.
class ProgramRun {
 public:
  ProgramRun(std::string name, const std::string& args_json, ProgramAllocator& allocator,
             ProgramContext& context);

  // Arguments, each with a default. Every getter records the key; finish_arguments() then
  // rejects any key no getter asked for, so a typo in a workload fails instead of being ignored.
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max);
  bool boolean(const std::string& key, bool fallback);
  std::vector<std::int64_t> shape(const std::string& key, std::vector<std::int64_t> fallback);
  std::vector<std::string> choices(const std::string& key, std::vector<std::string> fallback,
                                   const std::vector<std::string>& allowed);
  void finish_arguments() const;

  // A probe now, with `live_bytes` as the program's requested bytes.
  void mark(const std::string& label, std::uint64_t live_bytes);
  // A probe whose allocated and reserved are the allocator layer's peaks since reset_peaks()
  // (getDeviceStats().peak for torch's own allocator), with `peak_live_bytes` the program's own
  // peak; the driver and NVML figures in it are current ones (neither keeps a peak).
  void mark_peak(const std::string& label, std::uint64_t peak_live_bytes);
  void reset_peaks();
  // torch.cuda.empty_cache(), then a device synchronisation.
  void empty_cache();
  void synchronize();

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& why) const;

  std::string name_;
  nlohmann::json args_;
  std::vector<std::string> known_;
  ProgramAllocator& allocator_;
  ProgramContext& context_;
};

// Bytes of a tensor's storage as the program sees it (0 for an undefined tensor).
inline std::uint64_t bytes_of(const at::Tensor& t) {
  return t.defined() ? static_cast<std::uint64_t>(t.nbytes()) : 0;
}

// Throws std::invalid_argument naming the known programs when `name` is not one.
void run(const std::string& name, const std::string& args_json, ProgramAllocator& allocator,
         ProgramContext& context);

// The programs, one per file.
void run_linear_stack(ProgramRun& run);
void run_temp_then_delete(ProgramRun& run);
void run_to_host_then_delete(ProgramRun& run);
void run_seed_000(ProgramRun& run);

}  // namespace memrel::torch_programs
