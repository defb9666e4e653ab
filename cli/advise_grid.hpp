// The grid of `memrel advise` (memrel.advise-grid/1, docs/advise.md): the configurations to
// sweep, each a backend as -b takes it (NAME or NAME:KEY=VALUE,...), resolved (so checked) as it
// is read. Its own file so that the fuzz target (tests/fuzz/fuzz_advise_grid.cpp) runs the very
// code advise runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace memrel::cli {

constexpr const char* kGridSchema = "memrel.advise-grid/1";
// A grid's size: each configuration is a cell of about a second or more, so a grid of
// thousands is days of device time (a 200,000-entry grid was accepted and started).
constexpr std::size_t kMaxGridConfigurations = 1000;
constexpr std::uint64_t kMaxGridFileBytes = 4u << 20;

// The configurations as written (each resolved, a backend file's path kept a path), in the
// grid's order. std::invalid_argument naming PATH
// and the entry (configurations[i]) for anything wrong.
std::vector<std::string> grid_configurations(const nlohmann::json& grid, const std::string& path,
                                             const std::string& backends_dir);

// The file by the input rules (docs/inputs.md: a regular file, under kMaxGridFileBytes, JSON
// that says one thing), then grid_configurations.
std::vector<std::string> read_grid(const std::string& path, const std::string& backends_dir);

}  // namespace memrel::cli
