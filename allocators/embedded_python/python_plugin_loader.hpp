// The parent and cell side of the embedded-Python plugin, libmemrel_python.so: the allocators of
// Python frameworks (JAX/XLA, CuPy) called through an interpreter embedded in the cell.
//
// Why a plugin, as for LibTorch (allocators/torch/plugin_loader.hpp): memrel must build and run
// where no Python development files exist, the parent process must never load an interpreter
// (nor, through it, CUDA), and each backend's settings (XLA_PYTHON_CLIENT_*) must be in the
// environment before the framework loads, which only a fresh cell process can guarantee.
//
// Why an interpreter rather than a C API: XLA's allocators are reachable from C through the
// PJRT C API that the jax-cuda plugin exports, but no wheel ships that API's header and memrel
// vendors no headers; CuPy's pools exist only as Python (Cython) objects. The cost of the
// Python layer per allocation is measured against the same allocator called natively
// (docs/frameworks.md).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "allocators/backend_family.hpp"

namespace memrel {

// The Python whose site-packages hold the frameworks: $MEMREL_PYTHON if set, else the one this
// build embedded (CMake's MEMREL_PYTHON, docs/frameworks.md).
std::string frameworks_python();

// Where the cell looks for the plugin: $MEMREL_PYTHON_PLUGIN if set, else libmemrel_python.so in
// memrel's library folder, else next to the memrel executable. Empty when none exists.
std::string python_plugin_path();

// Checked in the parent, which loads no interpreter: the plugin exists, frameworks_python() runs
// the Python version the plugin embeds, `probe` (Python source, run by that interpreter, printing
// nothing when the framework is there and one line saying why when not; it must not import the
// framework, which may initialise CUDA) prints nothing, and NVML sees a device. Cached per probe.
Availability python_framework_availability(const std::string& probe);

// In the cell: loads the plugin, starts the interpreter and makes `backend` of the framework
// whose Python module source is `module_source` (named `module_name` in tracebacks). Throws
// BackendUnavailable when the plugin or the framework cannot be loaded, std::runtime_error when
// the framework is not configured as the backend asks.
std::unique_ptr<Allocator> make_python_allocator(const std::string& module_name,
                                                 const std::string& module_source,
                                                 const std::string& backend);

// The framework versions the plugin has loaded in this process (e.g. {"jax": "0.11.2"}); empty
// when no plugin is loaded. Never loads the plugin (RTLD_NOLOAD).
std::map<std::string, std::string> loaded_python_framework_versions();

}  // namespace memrel
