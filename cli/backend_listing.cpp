#include "cli/backend_listing.hpp"

#include <algorithm>
#include <filesystem>

#include "allocators/backend_table.hpp"
#include "allocators/pluggable/backend_file.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

nlohmann::json backend_entry(const BackendInfo& b) {
  Availability a = b.availability();
  nlohmann::json entry = {{"name", b.name},
                          {"kind", backend_kind_name(b.kind)},
                          {"description", b.description},
                          {"release", b.release},
                          {"space", memory_space_name(b.space)},
                          {"available", a.available},
                          {"reason", a.reason},
                          {"valid", true}};
  if (b.kind == BackendKind::kPluggable) entry["file"] = b.file;
  return entry;
}

}  // namespace

nlohmann::json backend_listing(const std::string& backends_dir) {
  nlohmann::json backends = nlohmann::json::array();
  for (const auto& b : all_backends()) backends.push_back(backend_entry(b));
  std::vector<std::string> names;
  for (const auto& path : folder_backend_files(backends_dir)) {
    std::string error;
    try {
      BackendInfo b = backend_from_file(path);
      if (std::find(names.begin(), names.end(), b.name) != names.end()) {
        error =
            BackendFileError(path, "name", "\"" + b.name + "\" is listed twice in " + backends_dir)
                .what();
      } else {
        names.push_back(b.name);
        backends.push_back(backend_entry(b));
        continue;
      }
    } catch (const BackendFileError& e) {
      error = e.what();
    }
    backends.push_back({{"name", fs::path(path).stem().string()},
                        {"kind", backend_kind_name(BackendKind::kPluggable)},
                        {"file", path},
                        {"available", false},
                        {"reason", error},
                        {"valid", false},
                        {"error", error}});
  }
  return backends;
}

std::vector<std::string> available_backend_names(const std::string& backends_dir) {
  std::vector<std::string> names;
  for (const auto& b : backend_listing(backends_dir)) {
    if (b["valid"] == true && b["available"] == true) names.push_back(b["name"].get<std::string>());
  }
  return names;
}

}  // namespace memrel::cli
