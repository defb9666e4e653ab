// A backend described as data: a JSON file (schema "memrel.backend/1") that names a shared
// library and the symbols of its allocator, so that memrel can measure an allocator it was not
// compiled with (one written for PyTorch's CUDAPluggableAllocator, or one being developed)
// without anyone editing memrel's source. This file parses and fully validates such a file into
// a description; pluggable_allocator.hpp loads the library it names. docs/pluggable-backends.md
// is the reference for the format.
//
//   {"schema": "memrel.backend/1", "name": "my-pool", "description": "...",
//    "library": "libmy_pool.so" | "relative/or/absolute/path.so",
//    "alloc": "my_alloc", "free": "my_free", "space": "device" | "host",
//    optional: "release", "allocated", "reserved", "synchronize" (symbols),
//              "environment": {"VAR": "value"}, "release_note": "what release does, one line"}
//
// Parsing never loads the library: it runs in the parent process, which must not load an
// allocator's CUDA code.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel {

constexpr const char* kBackendSchema = "memrel.backend/1";
// The cap on a backend file (docs/inputs.md): the shipped ones are about 500 bytes.
constexpr std::uint64_t kMaxBackendFileBytes = std::uint64_t{64} << 10;

// "FILE: PLACE: MESSAGE", one line: a backend file that cannot be used as it is (malformed,
// another schema, a library that does not load, a symbol it does not export). An
// invalid_argument, so the command line exits 2 for it like any other unusable input.
class BackendFileError : public std::invalid_argument {
 public:
  BackendFileError(const std::string& file, const std::string& place, const std::string& message);
};

struct BackendFile {
  std::string file;  // the description file, as given
  std::string name, description;
  std::string library;  // as written in the file
  // Where to load it from: an absolute path when the file gives a path ("/" in the value,
  // relative to the description's folder) or when the bare name is found next to the memrel
  // executable; otherwise the bare name, left to dlopen's own search (LD_LIBRARY_PATH, ...).
  std::string library_path;
  MemorySpace space = MemorySpace::kDevice;
  // Symbol names; the optional ones are empty when absent.
  std::string alloc, free, release, allocated, reserved, synchronize;
  std::map<std::string, std::string> environment;  // set in the cell's process before exec
  std::string release_note;                        // empty when absent
};

// Throws BackendFileError. `file` names the source in errors and anchors relative library paths.
BackendFile parse_backend_text(const std::string& text, const std::string& file);
BackendFile parse_backend_file(const std::string& file);

// Where a bare library name is looked for first: executable_dir() (platform/executable_path),
// then memrel's library folder
// (platform/install_layout: the build folder that holds memrel and the examples, which
// memrel_bench runs below, or an installed prefix's lib/memrel).
std::vector<std::string> memrel_dirs();

// Whether the library can be found without loading it: an existing file for a path; for a bare
// name, a file in LD_LIBRARY_PATH's folders, the dynamic linker's cache or the system library
// folders. Empty when found, else why not (one line).
std::string library_not_found_reason(const BackendFile& backend);

// The library's file as the dynamic linker would find it: its path, or a bare name looked up next
// to memrel, in LD_LIBRARY_PATH, then the system library folders; "" when not found there (one
// only the linker cache lists has no file named here).
std::string library_file_found(const BackendFile& backend);

}  // namespace memrel
