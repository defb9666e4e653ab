// `memrel list`: the backend table and the backend files of the backends folder (with whether
// each can run here, and why not; an invalid file with its error) and the workloads folder, as
// text, JSON, or the compiled backend table as Markdown (docs/backends.md).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "allocators/backend_table.hpp"
#include "cli/backend_listing.hpp"
#include "cli/duplicate_names.hpp"
#include "cli/subcommand.hpp"
#include "cli/trace_import.hpp"
#include "harness/workload/workload.hpp"
#include "harness/workload/workload_files.hpp"
#include "platform/one_line_text.hpp"
#include "platform/path_for_json.hpp"

namespace fs = std::filesystem;

namespace memrel::cli {
namespace {

struct ListArgs {
  bool json = false;
  bool available_backends = false;
  bool markdown = false;
};

std::string padded(const std::string& s, std::size_t width) {
  return s + std::string(width - std::min(width - 1, s.size()), ' ');
}

nlohmann::json listing(const GlobalOptions& global) {
  nlohmann::json out = {{"backends", backend_listing(global.backends_dir)},
                        {"workloads", nlohmann::json::array()}};
  const std::string& workloads_dir = global.workloads_dir;
  for (const auto& path : all_workload_files(workloads_dir)) {
    try {
      Workload w = parse_workload_file(path);
      out["workloads"].push_back({{"name", w.name},
                                  {"path", path_for_json(path)},
                                  {"description", w.description},
                                  {"valid", true}});
    } catch (const WorkloadError& e) {
      // The file's name stands for the workload's, and the error quotes its path. A snapshot or
      // an RMM log is told by its content, as run tells it: "malformed JSON at byte 1" for a
      // snapshot named snap.json, where run says what it is (the forty-fourth adversarial pass,
      // c10-list-snapshot-named-json).
      const std::string error =
          needs_trace_import(path) ? not_imported_from_workloads_folder(path) : e.what();
      out["workloads"].push_back({{"name", path_for_json(fs::path(path).stem().string())},
                                  {"path", path_for_json(path)},
                                  {"valid", false},
                                  {"error", path_for_json(error)}});
    }
  }
  // Two files of one name (or of one report page) are each good, and the folder is not: run
  // without -w refuses it. The later one is marked, naming both, as a backend file with a
  // built-in's name is (the forty-ninth adversarial pass, c6-list-duplicate-workloads-silent).
  std::vector<std::string> names, sources;
  for (auto& w : out["workloads"]) {
    if (!w["valid"].get<bool>()) continue;
    names.push_back(w["name"].get<std::string>());
    sources.push_back(w["path"].get<std::string>());
    try {
      refuse_duplicates(names, sources, "the workload", kRenameWorkload);
    } catch (const std::invalid_argument& e) {
      w["valid"] = false;
      w["error"] = path_for_json(std::string(e.what()) + " (run without -w refuses this folder)");
      names.pop_back();
      sources.pop_back();
    }
  }
  return out;
}

int run_list(const ListArgs& args, const GlobalOptions& global) {
  if (args.available_backends) {
    for (const std::string& name : available_backend_names(global.backends_dir))
      std::cout << one_line_text(name) << "\n";
    return 0;
  }
  if (args.markdown) {
    std::cout << backend_table_markdown();
    return 0;
  }
  nlohmann::json out = listing(global);
  if (args.json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "Backends (and backend files of " << one_line_text(global.backends_dir) << "):\n";
  for (const auto& b : out["backends"]) {
    std::cout << "  " << padded(one_line_text(b["name"].get<std::string>()), 24);
    if (!b["valid"].get<bool>()) {
      std::cout << "INVALID: " << one_line_text(b["error"].get<std::string>()) << "\n";
      continue;
    }
    std::cout << (b["available"].get<bool>() ? "available    " : "unavailable  ")
              << one_line_text(b["description"].get<std::string>());
    if (b.contains("file"))
      std::cout << "\n"
                << std::string(39, ' ') << "file: " << one_line_text(b["file"].get<std::string>());
    if (!b["available"].get<bool>())
      std::cout << "\n"
                << std::string(39, ' ') << "why: " << one_line_text(b["reason"].get<std::string>());
    std::cout << "\n";
  }
  std::cout << "Workloads (" << one_line_text(global.workloads_dir) << "):\n";
  for (const auto& w : out["workloads"]) {
    std::cout << "  " << padded(one_line_text(w["name"].get<std::string>()), 24)
              << (w["valid"].get<bool>()
                      ? one_line_text(w["description"].get<std::string>())
                      : "INVALID: " + one_line_text(w["error"].get<std::string>()))
              << "\n";
  }
  return 0;
}

}  // namespace

RunSubcommand attach_list(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<ListArgs>();
  app.add_flag("--json", args->json, "Print JSON");
  app.add_flag("--available-backends", args->available_backends,
               "Print only the names of the backends that can run here, compiled ones and the "
               "backends folder's files, one a line (for scripts: the names memrel_bench takes)");
  app.add_flag("--markdown", args->markdown,
               "Print the compiled backend table as Markdown (docs/backends.md holds this output)");
  return [args, &global] { return run_list(*args, global); };
}

}  // namespace memrel::cli
