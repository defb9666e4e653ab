// Every backend memrel knows, one row each: what it is called, what it wraps, what release does
// for it, where its memory lives, the environment its process needs, whether it can run here and
// how to make one. The only place a backend is described: `memrel list` prints these rows, and
// docs/backends.md is their Markdown rendering (a test keeps the two equal).
//
// Adding a backend: a file with its factory (allocators/cuda, allocators/host) and one row in
// backend_table.cpp.
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

// Where a backend comes from. builtin: compiled into memrel; torch: the LibTorch plugin.
enum class BackendKind { kBuiltin, kTorch };
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
};

const std::vector<BackendInfo>& all_backends();

// Throws std::invalid_argument naming the valid backends when `name` is unknown.
const BackendInfo& find_backend(const std::string& name);

std::string backend_names_joined();

// The table as Markdown (name, kind, space, description, release): docs/backends.md.
std::string backend_table_markdown();

// Shared availability checks.
Availability device_backend_availability();
Availability host_backend_availability();

}  // namespace memrel
