#include "allocators/torch/plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "allocators/availability.hpp"
#include "allocators/torch/variants.hpp"
#include "platform/executable_path.hpp"
#include "platform/install_layout.hpp"

namespace memrel {
namespace {

constexpr const char* kPluginFile = "libmemrel_torch.so";

bool is_file(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The plugin's entry points (allocators/torch/plugin.cpp).
using AbiFn = int (*)();
using MakeFn = Allocator* (*)(const char* variant);
using RunOverFn = void (*)(Allocator* backend, const char* program, const char* args_json,
                           ProgramContext* context);

std::uint64_t plugin_load_ns = 0;

// dlopen of the plugin, timed; the second call finds it loaded and costs nothing.
void* open_plugin(const std::string& path) {
  auto start = std::chrono::steady_clock::now();
  // RTLD_LOCAL: LibTorch's symbols stay out of the global namespace. The plugin is never
  // unloaded: LibTorch does not support dlclose, and the allocator's code lives there.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  plugin_load_ns += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  return handle;
}

// The plugin's handle, loaded once per process and checked against this memrel's interface.
void* load_plugin() {
  Availability a = torch_backend_availability();
  if (!a.available) throw BackendUnavailable(a.reason);
  std::string path = torch_plugin_path();
  void* handle = open_plugin(path);
  if (handle == nullptr) {
    const char* err = dlerror();
    throw BackendUnavailable("cannot load " + path + ": " + (err ? err : "unknown dlopen error"));
  }
  auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "memrel_torch_plugin_abi"));
  if (abi == nullptr) throw BackendUnavailable(path + " is not a memrel torch plugin");
  if (abi() != kTorchPluginAbi) {
    throw BackendUnavailable(path + " was built for plugin interface " + std::to_string(abi()) +
                             ", this memrel needs " + std::to_string(kTorchPluginAbi) +
                             " (rebuild the target memrel_torch)");
  }
  return handle;
}

template <typename Fn>
Fn plugin_symbol(void* handle, const char* name) {
  auto fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr) {
    throw BackendUnavailable(torch_plugin_path() + " has no " + name +
                             " (rebuild the target memrel_torch)");
  }
  return fn;
}

using VersionFn = const char* (*)();

}  // namespace

std::string torch_plugin_path() {
  if (const char* env = std::getenv("MEMREL_TORCH_PLUGIN"); env != nullptr && *env != '\0') {
    return is_file(env) ? std::string(env) : std::string();
  }
  // Built or installed with the pluggable examples (platform/install_layout), else beside memrel.
  for (const std::string& dir : {install_layout().library_dir, executable_dir()}) {
    if (std::string path = dir + "/" + kPluginFile; is_file(path)) return path;
  }
  return std::string();
}

Availability torch_backend_availability() {
  if (torch_plugin_path().empty()) {
    if (const char* env = std::getenv("MEMREL_TORCH_PLUGIN"); env != nullptr && *env != '\0') {
      return {false, std::string("MEMREL_TORCH_PLUGIN=") + env + " is not a file"};
    }
#ifdef MEMREL_TORCH_PLUGIN
    // Without a device the plugin could not run anyway: say so, as with the plugin built, so
    // that a run's results do not depend on whether it was built yet (scripts/suite builds it
    // after the cells on a machine without a GPU).
    if (Availability device = device_backend_availability(); !device.available) return device;
    return {false, std::string("the LibTorch plugin ") + kPluginFile + " is missing from " +
                       install_layout().library_dir +
                       " (build or install the target memrel_torch)"};
#else
    return {false,
            "memrel was built without LibTorch (configure with torch installed: "
            "scripts/install-torch)"};
#endif
  }
  return device_backend_availability();
}

void preload_torch_plugin() {
  const std::string path = torch_plugin_path();
  if (path.empty()) return;
  if (open_plugin(path) == nullptr) dlerror();  // the cell loads it again and reports why not
  // What the zygote spent is not a cell's.
  plugin_load_ns = 0;
}

std::uint64_t torch_plugin_load_ns() { return plugin_load_ns; }

std::unique_ptr<Allocator> make_torch_allocator(const std::string& variant) {
  auto make = plugin_symbol<MakeFn>(load_plugin(), "memrel_torch_make");
  return std::unique_ptr<Allocator>(make(variant.c_str()));
}

void run_torch_program_native(Allocator& torch_allocator, const std::string& name,
                              const std::string& args_json, ProgramContext& context) {
  auto run = plugin_symbol<RunOverFn>(load_plugin(), "memrel_torch_run_program_native");
  run(&torch_allocator, name.c_str(), args_json.c_str(), &context);
}

void run_torch_program_on(Allocator& backend, const std::string& name, const std::string& args_json,
                          ProgramContext& context) {
  auto run = plugin_symbol<RunOverFn>(load_plugin(), "memrel_torch_run_program_over");
  run(&backend, name.c_str(), args_json.c_str(), &context);
}

std::optional<std::string> loaded_torch_version() {
  const std::string path = torch_plugin_path();
  if (path.empty()) return std::nullopt;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) return std::nullopt;
  auto version = reinterpret_cast<VersionFn>(dlsym(handle, "memrel_torch_version"));
  std::optional<std::string> out;
  if (version != nullptr && version() != nullptr) out = version();
  dlclose(handle);  // drops only the reference RTLD_NOLOAD added
  return out;
}

}  // namespace memrel
