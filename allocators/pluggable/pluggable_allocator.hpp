// The pluggable backends: an allocator in a shared library that memrel was not built with,
// described by a backend file (backend_file.hpp), loaded with dlopen() in the cell process and
// driven through the symbols the file names. The signatures are PyTorch's
// CUDAPluggableAllocator's (torch/csrc/cuda/CUDAPluggableAllocator.h), so a library written for
// torch.cuda.memory.CUDAPluggableAllocator runs here unchanged, plus memrel's own optional
// symbols (release, allocated, reserved, synchronize). docs/pluggable-backends.md documents
// them.
//
// Why dlopen in the cell only: the parent process runs every backend and must never create a
// CUDA context or run an allocator's code; a fresh cell process also gets the file's
// "environment" before the library loads, for allocators that read settings once at load.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>

#include "allocators/allocator.hpp"
#include "allocators/backend_family.hpp"
#include "allocators/pluggable/backend_file.hpp"

namespace memrel {

// The symbols' C signatures. cudaStream_t is `void*` here (it is a pointer to an opaque struct),
// so that memrel builds without CUDA headers; memrel always passes device 0 and a null stream.
extern "C" {
using PluggableAllocFn = void* (*)(ssize_t size, int device, void* stream);
using PluggableFreeFn = void (*)(void* ptr, ssize_t size, int device, void* stream);
using PluggableReleaseFn = void (*)(int device);
using PluggableBytesFn = size_t (*)(int device);
using PluggableSynchronizeFn = void (*)(int device);
}

// The library loaded and its symbols resolved; nothing called. Throws BackendFileError:
// "FILE: library: cannot load LIB (dlopen's error)" or
// "FILE: symbol "NAME" not found in /abs/LIB". The library is never unloaded.
struct PluggableSymbols {
  std::string loaded_path;  // where the dynamic linker found it
  PluggableAllocFn alloc = nullptr;
  PluggableFreeFn free = nullptr;
  PluggableReleaseFn release = nullptr;  // null when the file names none (and below)
  PluggableBytesFn allocated = nullptr;
  PluggableBytesFn reserved = nullptr;
  PluggableSynchronizeFn synchronize = nullptr;
};
PluggableSymbols load_pluggable_library(const BackendFile& backend);

// In the cell: loads the library and wraps it in the Allocator interface.
std::unique_ptr<Allocator> make_pluggable_allocator(const BackendFile& backend);

// The backend table's row for a description file: its release line, environment, availability
// (checked without loading anything: the library can be found, and a device for device space)
// and factory.
BackendInfo pluggable_backend(const BackendFile& backend, const std::string& family);

}  // namespace memrel
