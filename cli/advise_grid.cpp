#include "cli/advise_grid.hpp"

#include <stdexcept>

#include "allocators/backend_table.hpp"
#include "platform/input_rules.hpp"
#include "platform/unusable_input.hpp"

namespace memrel::cli {

std::vector<std::string> grid_configurations(const nlohmann::json& grid, const std::string& path,
                                             const std::string& backends_dir) {
  auto bad = [&](const std::string& what) { throw UnusableInput(path + ": " + what); };
  if (!grid.is_object()) bad("expected an object with schema and configurations");
  // Another kind of memrel's files (results, a backend file) named by its schema before its keys
  // are said to be unknown (the fifty-first adversarial pass, c10-trace-as-backend-file).
  if (const auto schema = grid.find("schema");
      schema != grid.end() && schema->is_string() &&
      schema->get<std::string>().rfind("memrel.", 0) == 0 &&
      schema->get<std::string>().rfind("memrel.advise-grid/", 0) != 0)
    bad("schema " + schema->dump() +
        ": another of memrel's files, not a grid file (whose schema is \"" + kGridSchema + "\")");
  for (const auto& [key, value] : grid.items()) {
    if (key != "schema" && key != "description" && key != "configurations")
      bad("unknown key '" + key + "' (keys: schema, description, configurations)");
  }
  if (grid.value("schema", nlohmann::json()) != kGridSchema)
    bad(std::string("schema: expected \"") + kGridSchema + "\"");
  if (!grid.contains("configurations") || !grid["configurations"].is_array() ||
      grid["configurations"].empty())
    bad("configurations: expected a list of backends (NAME or NAME:KEY=VALUE,...)");
  if (grid["configurations"].size() > kMaxGridConfigurations)
    bad("configurations: " + std::to_string(grid["configurations"].size()) + " entries; at most " +
        std::to_string(kMaxGridConfigurations) + " (each is a cell of a second or more)");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < grid["configurations"].size(); ++i) {
    const nlohmann::json& entry = grid["configurations"][i];
    const std::string place = "configurations[" + std::to_string(i) + "]";
    if (!entry.is_string()) bad(place + ": expected a string, got " + entry.dump());
    try {
      // Checked here, kept as written: a backend file's path named by its name alone ran the
      // --backends-dir file of that name (the twenty-fourth adversarial pass,
      // c10-advise-grid-backend-file-substituted).
      resolve_backend(entry.get<std::string>(), backends_dir);
      out.push_back(entry.get<std::string>());
    } catch (const std::invalid_argument& e) {
      bad(place + ": " + e.what());
    }
  }
  return out;
}

std::vector<std::string> read_grid(const std::string& path, const std::string& backends_dir) {
  return grid_configurations(read_input_json(path, kMaxGridFileBytes, "grid file"), path,
                             backends_dir);
}

}  // namespace memrel::cli
