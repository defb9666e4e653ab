// The conformance suite's parameters: one row per backend, from the compiled table
// (all_backends()) and from the backend files of benchmarks/backends/ (folder_backends()), split
// by memory space so that device rows carry the ctest label gpu and host rows cpu.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "allocators/backend_table.hpp"
#include "allocators/conformance_contracts.hpp"

namespace memrel::conformance {

struct BackendRow {
  BackendInfo backend;
  UsageAccounting usage = UsageAccounting::kOwn;
  // Set when the backends folder could not be read: the row stands for it and fails with this.
  std::string error;
};

// The rows of one memory space: the table's, then the folder's backend files (a folder that
// cannot be read is one row, in the host space, that fails with the error).
std::vector<BackendRow> backend_rows(MemorySpace space, const std::string& backends_dir);

// A test name's last part: the backend's name with every character GoogleTest does not allow
// (anything but letters, digits and '_') as '_': host-malloc -> host_malloc.
std::string test_name_of(const BackendRow& row);

// For GoogleTest's listing: the backend's name rather than the row's bytes.
void PrintTo(const BackendRow& row, std::ostream* out);

}  // namespace memrel::conformance
