// Every backend memrel knows, one row each: what it is called, what it wraps, what release does
// for it, where its memory lives, the environment its process needs, whether it can run here and
// how to make one. The only place a backend is described: `memrel list` prints these rows, and
// docs/backends.md is their Markdown rendering (a test keeps the two equal).
//
// Adding a backend: a file with its factory (allocators/cuda, allocators/host) and one row in
// backend_table.cpp. Or, without touching memrel's source, a backend file (memrel.backend/1,
// allocators/pluggable/, docs/pluggable-backends.md) naming a shared library: in the backends
// folder (benchmarks/backends/) it is found by its name, elsewhere by its path.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"

namespace memrel {

struct Availability {
  bool available = false;
  std::string reason;  // why not, when unavailable
};

// Where a backend comes from. builtin: compiled into memrel; torch: the LibTorch plugin; rmm:
// RAPIDS Memory Manager's resources; pluggable: a user's shared library named by a backend file.
enum class BackendKind { kBuiltin, kTorch, kRmm, kPluggable };
const char* backend_kind_name(BackendKind kind);
const char* memory_space_name(MemorySpace space);

struct BackendInfo {
  std::string name;
  BackendKind kind = BackendKind::kBuiltin;
  std::string description;  // what it wraps, one line
  std::string release;      // what release() does for it, one line
  MemorySpace space = MemorySpace::kDevice;
  // Environment the cell process must start with, because the allocator reads it once when its
  // library loads (PyTorch's allocator settings). The runner sets these before exec.
  std::map<std::string, std::string> cell_environment;
  // Checked in the parent process, which must not create a CUDA context: looks for a driver and
  // a device through NVML, never through the CUDA runtime.
  std::function<Availability()> availability;
  // Called inside the cell process only.
  std::function<std::unique_ptr<Allocator>()> make;
  // The backend file a pluggable backend comes from; empty for the compiled table's rows.
  std::string file = "";
};

// The compiled table: built-in, torch and rmm rows (never the backend files).
const std::vector<BackendInfo>& all_backends();

// Throws std::invalid_argument naming the valid backends when `name` is unknown.
const BackendInfo& find_backend(const std::string& name);

// Every *.json of the backends folder, sorted; a missing folder has none.
std::vector<std::string> folder_backend_files(const std::string& dir);

// One backend file as a row of the table (kind pluggable). Throws BackendFileError (an
// invalid_argument): one line naming the file and the key. Loads nothing.
BackendInfo backend_from_file(const std::string& path);

// Every backend file of the folder, sorted by file name; a missing folder is empty. Throws
// BackendFileError for the first invalid file, and when two files share a name.
std::vector<BackendInfo> folder_backends(const std::string& dir);

// What `memrel run -b X` and `memrel cell --backend X` accept: a name of the compiled table;
// else the name of a backend file in `backends_dir`; else the path of an existing backend file.
// Throws std::invalid_argument (unknown name) or BackendFileError (a bad file).
BackendInfo resolve_backend(const std::string& name_or_file, const std::string& backends_dir);

std::string backend_names_joined();

// The table as Markdown (name, kind, space, description, release): docs/backends.md.
std::string backend_table_markdown();

// Shared availability checks.
Availability device_backend_availability();
Availability host_backend_availability();
// Device availability, or why this build has no RMM (allocators/rmm/CMakeLists.txt).
Availability rmm_backend_availability();

}  // namespace memrel
