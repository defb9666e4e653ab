// Where memrel's own files are, found at run time from the running executable (/proc/self/exe),
// never from paths compiled in: one build works from its build tree and, after `cmake --install`,
// from any prefix it is moved to (the source tree may be gone).
//
//   installed (PREFIX/bin/memrel)         build tree (BUILD/memrel, BUILD/benchmarks/memrel_bench)
//   data:    PREFIX/share/memrel          SOURCE/benchmarks   (workloads/, backends/,
//   trace-sources/) python:  PREFIX/share/memrel/python   SOURCE/scripts      (memrel_report,
//   memrel_trace, ...) plugins: PREFIX/lib/memrel            BUILD (libmemrel_torch.so, examples)
//   outputs: $XDG_DATA_HOME/memrel        SOURCE/results      (runs/, history.sqlite)
//
// An installed prefix is recognised by its data folder; a build tree by the file
// memrel-build-tree that CMake writes at its top, naming the source tree (platform/CMakeLists.txt).
#pragma once

#include <string>

namespace memrel {

struct InstallLayout {
  bool found = false;          // false: neither layout; the folders below are then relative to "."
  bool installed = false;      // true: an installed prefix; false: a build tree
  std::string executable_dir;  // the running executable's folder
  std::string data_dir;        // workloads/, backends/, trace-sources/
  std::string python_dir;      // memrel's Python packages
  std::string library_dir;     // plugins and the pluggable examples
  std::string output_dir;      // default results: runs/<stamp>/, history.sqlite
  std::string source_dir;      // the source tree (build tree only; empty when installed)
  std::string description() const;  // one line: which layout, from where
};

// The layout of the running executable (computed once).
const InstallLayout& install_layout();

// The layout an executable in `executable_dir` would see; `home` and `xdg_data_home` stand for
// $HOME and $XDG_DATA_HOME. For tests.
InstallLayout install_layout_for(const std::string& executable_dir, const std::string& home,
                                 const std::string& xdg_data_home);

}  // namespace memrel
