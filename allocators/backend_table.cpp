#include "allocators/backend_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "allocators/backend_families.hpp"

namespace memrel {

const std::vector<BackendInfo>& all_backends() {
  static const std::vector<BackendInfo> backends = [] {
    std::vector<BackendInfo> rows;
    for (const BackendFamily* family : backend_families()) {
      for (BackendInfo& b : family->backends()) rows.push_back(std::move(b));
    }
    return rows;
  }();
  return backends;
}

std::string backend_names_joined() {
  std::string names;
  for (const auto& b : all_backends()) names += (names.empty() ? "" : ", ") + b.name;
  return names;
}

std::vector<BackendFileEntry> folder_backend_entries(const std::string& dir) {
  std::vector<BackendFileEntry> entries;
  for (const BackendFamily* family : backend_families()) {
    for (BackendFileEntry& e : family->backend_files(dir)) entries.push_back(std::move(e));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.file < b.file; });
  return entries;
}

std::vector<BackendInfo> folder_backends(const std::string& dir) {
  std::vector<BackendInfo> out;
  for (BackendFileEntry& e : folder_backend_entries(dir)) {
    if (!e.backend) throw std::invalid_argument(e.error);
    for (const auto& earlier : out) {
      if (earlier.name == e.backend->name)
        throw std::invalid_argument(e.file + ": name: \"" + e.backend->name +
                                    "\" is also the name of " + earlier.file);
    }
    out.push_back(std::move(*e.backend));
  }
  return out;
}

BackendInfo resolve_backend(const std::string& name_or_file, const std::string& backends_dir) {
  for (const auto& b : all_backends()) {
    if (b.name == name_or_file) return b;
  }
  for (const BackendFamily* family : backend_families()) {
    if (auto b = family->resolve(name_or_file, backends_dir)) return *b;
  }
  std::string folder_names;
  for (const BackendFileEntry& e : folder_backend_entries(backends_dir)) {
    // An invalid file is named by nobody here; `memrel list` shows it as invalid.
    if (e.backend) folder_names += ", " + e.backend->name;
  }
  throw std::invalid_argument("unknown backend '" + name_or_file +
                              "' (valid: " + backend_names_joined() + folder_names +
                              "; or a backend file: docs/pluggable-backends.md)");
}

std::string backend_table_markdown() {
  std::string out = "| backend | family | memory | what it is | release |\n|---|---|---|---|---|\n";
  for (const auto& b : all_backends()) {
    out += "| `" + b.name + "` | " + b.family + " | " + memory_space_name(b.space) + " | " +
           b.description + " | " + b.release + " |\n";
  }
  return out;
}

}  // namespace memrel
