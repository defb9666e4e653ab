#include "allocators/conformance_rows.hpp"

#include <cctype>
#include <exception>

#include "test_support.hpp"

namespace memrel::conformance {
namespace {

// What each backend's usage() figures can be held to (UsageAccounting). Every backend counts its
// own blocks but the two over glibc, whose mallinfo2 is the whole process's heap
// (allocators/host/host_malloc_allocator.hpp, docs/benchmarks.md, docs/gate.md).
UsageAccounting usage_accounting_of(const std::string& name) {
  if (name == "host-malloc" || name == "host-malloc-retain") {
    return MEMREL_UNDER_ASAN ? UsageAccounting::kNotComparable : UsageAccounting::kProcessWide;
  }
  return UsageAccounting::kOwn;
}

}  // namespace

std::vector<BackendRow> backend_rows(MemorySpace space, const std::string& backends_dir) {
  std::vector<BackendRow> rows;
  for (const BackendInfo& b : all_backends()) {
    if (b.space == space) rows.push_back({b, usage_accounting_of(b.name), ""});
  }
  std::vector<BackendInfo> files;
  try {
    files = folder_backends(backends_dir);
  } catch (const std::exception& e) {
    if (space == MemorySpace::kHost) {
      BackendInfo folder;
      folder.name = "backends-folder";
      rows.push_back({folder, UsageAccounting::kOwn, e.what()});
    }
  }
  for (const BackendInfo& b : files) {
    if (b.space == space) rows.push_back({b, usage_accounting_of(b.name), ""});
  }
  return rows;
}

std::string test_name_of(const BackendRow& row) {
  std::string name = row.backend.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

void PrintTo(const BackendRow& row, std::ostream* out) { *out << row.backend.name; }

}  // namespace memrel::conformance
