#include "platform/install_layout.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "platform/executable_path.hpp"

// Relative install directories, set by platform/CMakeLists.txt from GNUInstallDirs: relative, so
// that an installed tree can be moved (CPack, a container layer, a user's copy) and still work.
#ifndef MEMREL_BIN_TO_PREFIX
#define MEMREL_BIN_TO_PREFIX ".."
#endif
#ifndef MEMREL_PREFIX_TO_DATA
#define MEMREL_PREFIX_TO_DATA "share/memrel"
#endif
#ifndef MEMREL_PREFIX_TO_LIB
#define MEMREL_PREFIX_TO_LIB "lib/memrel"
#endif

namespace fs = std::filesystem;

namespace memrel {
namespace {

constexpr const char* kBuildTreeMarker = "memrel-build-tree";

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string normal(const fs::path& p) { return p.lexically_normal().string(); }

// The source tree a build tree names, or "" where `dir` is not the top of a build tree.
std::string source_named_by_marker(const fs::path& dir) {
  std::ifstream in(dir / kBuildTreeMarker);
  std::string source;
  if (!in || !std::getline(in, source) || source.empty()) return "";
  return source;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

InstallLayout install_layout_for(const std::string& executable_dir, const std::string& home,
                                 const std::string& xdg_data_home) {
  InstallLayout l;
  l.executable_dir = executable_dir;
  const fs::path exe(executable_dir);
  // Installed first: a prefix installed inside a build tree must not be taken for the tree.
  const fs::path prefix = exe / MEMREL_BIN_TO_PREFIX;
  if (is_dir(prefix / MEMREL_PREFIX_TO_DATA / "workloads")) {
    l.found = l.installed = true;
    l.data_dir = normal(prefix / MEMREL_PREFIX_TO_DATA);
    l.python_dir = normal(prefix / MEMREL_PREFIX_TO_DATA / "python");
    l.library_dir = normal(prefix / MEMREL_PREFIX_TO_LIB);
    // Results belong to the user, not to the prefix (often read-only): the XDG data folder.
    if (!xdg_data_home.empty() && fs::path(xdg_data_home).is_absolute()) {
      l.output_dir = normal(fs::path(xdg_data_home) / "memrel");
    } else if (!home.empty()) {
      l.output_dir = normal(fs::path(home) / ".local/share/memrel");
    } else {
      l.output_dir = "memrel-results";
    }
    return l;
  }
  // The build tree: memrel at its top, memrel_bench and the tests in folders below it.
  fs::path dir = exe;
  for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
    const std::string source = source_named_by_marker(dir);
    if (source.empty()) continue;
    l.found = true;
    l.source_dir = source;
    l.data_dir = normal(fs::path(source) / "benchmarks");
    l.python_dir = normal(fs::path(source) / "scripts");
    l.library_dir = normal(dir);
    l.output_dir = normal(fs::path(source) / "results");
    return l;
  }
  // Neither (a binary copied on its own): its files are looked for beside it, never in the
  // current folder. The current folder's `scripts/` was run as memrel's Python parts, and a
  // `benchmarks/backends/*.json` there named libraries every cell loaded: code from wherever
  // memrel was started (the eighth adversarial pass, c1-own-lonebinary-script).
  l.data_dir = normal(exe / "benchmarks");
  l.python_dir = normal(exe / "scripts");
  l.library_dir = executable_dir;
  l.output_dir = "results";
  return l;
}

const InstallLayout& install_layout() {
  static const InstallLayout layout =
      install_layout_for(executable_dir(), env("HOME"), env("XDG_DATA_HOME"));
  return layout;
}

std::string InstallLayout::description() const {
  if (!found) return "no installed prefix or build tree around " + executable_dir;
  if (installed) return "installed: " + normal(fs::path(executable_dir) / MEMREL_BIN_TO_PREFIX);
  return "build tree: " + library_dir + " (source " + source_dir + ")";
}

}  // namespace memrel
