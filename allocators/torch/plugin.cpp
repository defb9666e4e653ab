// The plugin's entry points, the only symbols libmemrel_torch.so exports; the loader is
// allocators/torch/plugin_loader.cpp.
#include <torch/version.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "allocators/torch/torch_caching_allocator.hpp"
#include "allocators/torch/torch_over_backend.hpp"
#include "allocators/torch/variants.hpp"

#define MEMREL_TORCH_EXPORT extern "C" __attribute__((visibility("default")))

// The interface version this plugin was built against.
MEMREL_TORCH_EXPORT int memrel_torch_plugin_abi() { return memrel::kTorchPluginAbi; }

// LibTorch's version as its headers name it ("2.11.0"), for the machine fingerprint.
MEMREL_TORCH_EXPORT const char* memrel_torch_version() { return TORCH_VERSION; }

// A new allocator of the named configuration (a variant, or torch-native:KEY=VALUE,...); the
// caller owns it. Throws what the constructor throws
// (BackendUnavailable, std::runtime_error): both sides are C++ built with the same compiler and
// standard library, so exceptions cross the boundary.
MEMREL_TORCH_EXPORT memrel::Allocator* memrel_torch_make(const char* variant) {
  std::optional<memrel::TorchConfiguration> c =
      memrel::find_torch_configuration(variant ? variant : "");
  if (!c) throw std::invalid_argument(std::string("no torch configuration named ") + variant);
  return new memrel::TorchCachingAllocator(*c);
}

// Runs a torch program on `allocator`, one that memrel_torch_make made: on torch's own caching
// allocator, as configured by the variant. Throws what the program throws, as above.
MEMREL_TORCH_EXPORT void memrel_torch_run_program_native(memrel::Allocator* allocator,
                                                         const char* program, const char* args_json,
                                                         memrel::ProgramContext* context) {
  static_cast<memrel::TorchCachingAllocator*>(allocator)->run_program(program, args_json, *context);
}

// Runs a torch program with its tensors allocated by `backend`, a backend the cell made
// (allocators/torch/torch_over_backend.hpp). Throws what the program throws, as above.
MEMREL_TORCH_EXPORT void memrel_torch_run_program_over(memrel::Allocator* backend,
                                                       const char* program, const char* args_json,
                                                       memrel::ProgramContext* context) {
  memrel::run_torch_program_over(*backend, program, args_json, *context);
}
