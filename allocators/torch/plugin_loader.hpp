// The torch family's side of the plugin boundary: LibTorch lives in a plugin,
// libmemrel_torch.so (allocators/torch/), that only a cell process loads.
//
// Why a plugin: memrel must build and run where LibTorch is missing (CI, host-only machines),
// the parent process must never load LibTorch (it would pull the CUDA runtime and the
// allocator's settings into a process that runs every backend), and each torch variant needs
// its allocator settings in the environment before libc10_cuda.so loads, which only a fresh
// process that dlopen()s the plugin after exec can guarantee.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "allocators/backend_family.hpp"

namespace memrel {

// Where the cell looks for the plugin: $MEMREL_TORCH_PLUGIN if set, else libmemrel_torch.so in
// memrel's library folder (the build tree's top, or PREFIX/lib/memrel installed:
// platform/install_layout), else next to the memrel executable. Empty when none of these exists.
std::string torch_plugin_path();

// Checked in the parent: a plugin file exists (nothing is loaded) and NVML sees a device.
Availability torch_backend_availability();

// In the cell: loads the plugin (and so LibTorch) and makes the variant's allocator. Throws
// BackendUnavailable when the plugin is missing or cannot be loaded (the reason names the
// library that failed), std::runtime_error when the allocator does not run the variant's
// configuration.
std::unique_ptr<Allocator> make_torch_allocator(const std::string& variant);

// In the cell of a torch backend: runs torch program `name` on `torch_allocator`, one that
// make_torch_allocator made (torch's own caching allocator).
void run_torch_program_native(Allocator& torch_allocator, const std::string& name,
                              const std::string& args_json, ProgramContext& context);

// In the cell of a device backend that is not torch's (cuda-malloc, the pools, RMM, a backend
// file): loads the plugin and runs torch program `name` with every tensor allocated by
// `backend`, through PyTorch's pluggable-allocator interface (torch_over_backend.hpp). Throws
// BackendUnavailable when the plugin is missing or cannot be loaded.
void run_torch_program_on(Allocator& backend, const std::string& name, const std::string& args_json,
                          ProgramContext& context);

// In a zygote (BackendInfo::preload): loads the plugin, and so LibTorch, without touching the
// device (no NVML, no CUDA call), so that the cells forked from it find it loaded. Never throws:
// a plugin that does not load is the cell's to report.
void preload_torch_plugin();

// How long this process spent in loading the plugin (dlopen: LibTorch's libraries and their
// static initialisation); 0 when it found it loaded (preloaded by its zygote) or never loaded it.
std::uint64_t torch_plugin_load_ns();

// LibTorch's version, when this process has already loaded the plugin (a torch backend was
// made here); empty otherwise. Never loads the plugin (RTLD_NOLOAD): the parent must not.
std::optional<std::string> loaded_torch_version();

}  // namespace memrel
