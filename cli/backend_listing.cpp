#include "cli/backend_listing.hpp"

#include <algorithm>
#include <filesystem>

#include "allocators/backend_table.hpp"
#include "platform/path_for_json.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

nlohmann::json backend_entry(const BackendInfo& b) {
  Availability a = b.availability();
  nlohmann::json entry = {{"name", b.name},
                          {"kind", b.family},
                          {"description", b.description},
                          {"release", b.release},
                          {"space", memory_space_name(b.space)},
                          {"available", a.available},
                          {"reason", a.reason},
                          {"valid", true}};
  if (!b.file.empty()) entry["file"] = path_for_json(b.file);
  return entry;
}

}  // namespace

nlohmann::json backend_listing(const std::string& backends_dir) {
  nlohmann::json backends = nlohmann::json::array();
  for (const auto& b : all_backends()) backends.push_back(backend_entry(b));
  std::vector<std::string> names;
  for (const BackendFileEntry& e : folder_backend_entries(backends_dir)) {
    std::string error = e.error;
    if (e.backend) {
      if (std::find(names.begin(), names.end(), e.backend->name) == names.end()) {
        names.push_back(e.backend->name);
        backends.push_back(backend_entry(*e.backend));
        continue;
      }
      error = e.file + ": name: \"" + e.backend->name + "\" is listed twice in " + backends_dir;
    }
    // The file's name stands for the backend's, and the error quotes its path.
    backends.push_back({{"name", path_for_json(fs::path(e.file).stem().string())},
                        {"kind", e.family},
                        {"file", path_for_json(e.file)},
                        {"available", false},
                        {"reason", path_for_json(error)},
                        {"valid", false},
                        {"error", path_for_json(error)}});
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
