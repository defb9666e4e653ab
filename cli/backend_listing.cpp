#include "cli/backend_listing.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "allocators/backend_table.hpp"
#include "harness/execution/runner.hpp"
#include "platform/executable_path.hpp"
#include "platform/interrupt.hpp"
#include "platform/path_for_json.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

// Available only where its library loads and exports its symbols, checked as run checks it
// (`memrel cell --check` in a child: memrel never loads a backend's library itself): a library
// that is there but needs one that is not was listed available, printed by
// --available-backends, and bench's default set ran it and said the backend failed (the
// thirty-first adversarial pass, c8-list-says-available-library-cannot-load).
Availability loadable_here(const BackendInfo& b, const std::string& backends_dir) {
  Availability a = b.availability();
  if (!a.available || !b.check_loadable || b.file.empty() || !machine_runs_space(b.space)) return a;
  RunOptions options;
  options.memrel_executable = executable_path().empty() ? "memrel" : executable_path();
  options.backends_dir = backends_dir;
  // A listing is asked for at once: a library still loading after 30 s (a cold libtorch takes a
  // few) is listed unavailable, said while it is waited for. 60 s per file, silent, held `list`
  // and bench's default set (the fortieth adversarial pass,
  // c8-list-hangs-on-library-that-hangs-loading).
  options.cell_timeout_s = 30;
  try {
    if (std::string error = check_backend_process(options, b.file, &std::cerr); !error.empty())
      return {false, error};
  } catch (const Interrupted&) {
    throw;
  } catch (const std::runtime_error& e) {  // no child could start (a TMPDIR that takes no file)
    return {false, std::string("its library could not be checked: ") + e.what()};
  }
  return a;
}

nlohmann::json backend_entry(const BackendInfo& b, const std::string& backends_dir) {
  Availability a = loadable_here(b, backends_dir);
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
  for (const auto& b : all_backends()) backends.push_back(backend_entry(b, backends_dir));
  // A name two files hold is neither's: run and bench refuse it ("two files of the folder"), so
  // both are listed invalid; the first was "available", and bench's default set then refused
  // the whole run (the thirty-third adversarial pass, c6-list-dup-backend-file-available).
  const std::map<std::string, int> shared = names_of_several_files(backends_dir);
  for (const BackendFileEntry& e : folder_backend_entries(backends_dir)) {
    std::string error = e.error;
    if (e.backend) {
      const auto held = shared.find(e.backend->name);
      if (held == shared.end()) {
        backends.push_back(backend_entry(*e.backend, backends_dir));
        continue;
      }
      error = e.file + ": name: \"" + e.backend->name + "\" is the name of " +
              std::to_string(held->second) + " files in " + backends_dir;
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

std::map<std::string, int> names_of_several_files(const std::string& backends_dir) {
  std::map<std::string, int> files_named;
  for (const BackendFileEntry& e : folder_backend_entries(backends_dir))
    if (e.backend) ++files_named[e.backend->name];
  for (auto it = files_named.begin(); it != files_named.end();)
    it = it->second > 1 ? std::next(it) : files_named.erase(it);
  return files_named;
}

std::vector<std::string> available_backend_names(const std::string& backends_dir) {
  std::vector<std::string> names;
  for (const auto& b : backend_listing(backends_dir)) {
    if (b["valid"] == true && b["available"] == true) names.push_back(b["name"].get<std::string>());
  }
  return names;
}

}  // namespace memrel::cli
