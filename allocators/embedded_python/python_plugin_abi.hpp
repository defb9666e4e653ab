// The interface between memrel and its embedded-Python plugin, libmemrel_python.so
// (allocators/embedded_python/). Header-only: both sides of the dlopen() boundary include it.
#pragma once

namespace memrel {

// Bumped whenever allocator.hpp or the plugin's entry points change, so that a stale
// libmemrel_python.so is refused with a message instead of crashing through a changed vtable.
constexpr int kPythonPluginAbi = 1;

// The plugin's library file, found like the torch plugin (platform/install_layout).
constexpr const char* kPythonPluginFile = "libmemrel_python.so";

}  // namespace memrel
