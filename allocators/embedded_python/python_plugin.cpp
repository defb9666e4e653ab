// The plugin's entry points, the only symbols libmemrel_python.so exports; the loader is
// allocators/embedded_python/python_plugin_loader.cpp.
#include "allocators/embedded_python/python_allocator.hpp"
#include "allocators/embedded_python/python_plugin_abi.hpp"

#define MEMREL_PYTHON_EXPORT extern "C" __attribute__((visibility("default")))

MEMREL_PYTHON_EXPORT int memrel_python_plugin_abi() { return memrel::kPythonPluginAbi; }

// A new allocator of `backend`, made by the framework module's make_backend; the caller owns it.
// Throws what make_python_allocator_in_plugin throws: both sides are C++ built with the same
// compiler and standard library, so exceptions cross the boundary (as for the torch plugin).
MEMREL_PYTHON_EXPORT memrel::Allocator* memrel_python_make(const char* python,
                                                           const char* module_name,
                                                           const char* module_source,
                                                           const char* backend) {
  return memrel::make_python_allocator_in_plugin(python, module_name, module_source, backend)
      .release();
}

// "name=version" lines of the frameworks loaded in this process.
MEMREL_PYTHON_EXPORT const char* memrel_python_versions() {
  return memrel::loaded_versions_text().c_str();
}
