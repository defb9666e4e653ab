// An Allocator whose every call goes to a framework's allocator through the embedded interpreter
// (plugin side). The framework's knowledge is a Python module of its family
// (allocators/xla/xla_backend.py, allocators/cupy/cupy_backend.py), handed over as source, whose
// make_backend(name) returns an object with:
//   allocate(n) -> (handle, device_pointer)  the framework's object that owns n bytes
//   free(handle) or free = None              called before the last reference is dropped
//   release(), synchronize()
//   fill(handle, device_pointer, n)          writes every byte
//   usage() -> (allocated or None, reserved or None)
//   is_out_of_memory(exception) -> bool
//   versions() -> {name: version}
// The handles live in a table keyed by the device pointer, so that deallocate(p) drops the
// framework's own object, as a program's `del` would.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "allocators/allocator.hpp"

namespace memrel {

// Starts the interpreter of `python` (once per process) and makes the backend. Throws
// BackendUnavailable when the module's imports fail (the framework is not there),
// std::runtime_error for any other Python error.
std::unique_ptr<Allocator> make_python_allocator_in_plugin(const std::string& python,
                                                           const std::string& module_name,
                                                           const std::string& module_source,
                                                           const std::string& backend);

// "name=version" lines of every framework a backend made here has loaded.
const std::string& loaded_versions_text();

}  // namespace memrel
