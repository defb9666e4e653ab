// memrel advise's grid (memrel.advise-grid/1) and the backend configurations it and every -b
// take (NAME:KEY=VALUE,...): any bytes, read as a grid and as a -b list, either resolve or throw
// invalid_argument (the one line, exit 2). What resolves keeps the promises of docs/advise.md: a
// grid of at most kMaxGridConfigurations entries, each entry resolving, and one configuration has
// one name (its canonical name resolves to itself). The work per input is bounded by the run's
// -timeout and -rss_limit_mb (scripts/test-sanitized), as for every target.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "allocators/backend_settings.hpp"
#include "allocators/backend_table.hpp"
#include "cli/advise_grid.hpp"
#include "platform/input_rules.hpp"

namespace {

// Nothing here: a name never finds a file by accident in a folder of backend files.
constexpr const char* kBackendsDir = "/nonexistent/fuzz/backends";

void canonical_is_a_fixed_point(const std::string& name) {
  if (name.empty() || memrel::resolve_backend(name, kBackendsDir).name != name) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    nlohmann::json grid = memrel::parse_input_json(text, "grid.json");
    // Entries come back as written (a backend file's path stays a path); each resolves, and
    // its canonical name is a fixed point.
    const auto entries = memrel::cli::grid_configurations(grid, "grid.json", kBackendsDir);
    if (entries.empty() || entries.size() > memrel::cli::kMaxGridConfigurations) std::abort();
    for (const std::string& entry : entries)
      canonical_is_a_fixed_point(memrel::resolve_backend(entry, kBackendsDir).name);
  } catch (const std::invalid_argument&) {
  }
  for (const std::string& spec : memrel::split_backend_list({text})) {
    std::string name;
    try {
      name = memrel::resolve_backend(spec, kBackendsDir).name;
    } catch (const std::invalid_argument&) {
      continue;
    }
    canonical_is_a_fixed_point(name);
  }
  return 0;
}
