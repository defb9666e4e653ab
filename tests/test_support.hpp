// Helpers shared by the test files: temporary folders and running the memrel binary.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "harness/results/results.hpp"

// Built with AddressSanitizer (the asan preset): its allocator replaces glibc's, so malloc_trim
// and RSS figures of the host backends are the sanitizer's, and memory limits (ulimit -v) stop
// the sanitizer itself. Tests of those skip, saying so.
#if defined(__SANITIZE_ADDRESS__)
#define MEMREL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMREL_UNDER_ASAN 1
#endif
#endif
#ifndef MEMREL_UNDER_ASAN
#define MEMREL_UNDER_ASAN 0
#endif

namespace memrel::testing {

#ifdef MEMREL_TEST_DATA
// A JSON table of tests/data that the C++ and the Python sides are both checked against (names
// and their verdicts, names and their pages): one file, so that the two cannot drift.
inline nlohmann::json shared_test_table(const std::string& name) {
  std::ifstream in(std::string(MEMREL_TEST_DATA) + "/" + name);
  if (!in) throw std::runtime_error("tests/data/" + name + ": cannot read it");
  return nlohmann::json::parse(in);
}
#endif

// Bytes written as hex in a shared table: a byte that is not UTF-8 cannot stand in JSON.
inline std::string from_hex(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

// A folder removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "memrel-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line; the exit code is the command's own (not the shell's encoding).
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) r.output += buffer;
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// A cell's probe at the mark with this label; throws naming the cell when it has none.
inline const Snapshot& mark_at(const CellResult& cell, const std::string& label) {
  for (const auto& m : cell.marks) {
    if (m.label == label) return m.at;
  }
  throw std::runtime_error(cell.backend + " x " + cell.workload + ": no mark " + label);
}

inline std::string memrel_command(const std::string& args) {
  return std::string("'") + MEMREL_BINARY + "' " + args;
}

// One cell of a shipped workload (benchmarks/workloads/NAME.json) through `memrel cell` in a
// child process, as the runner runs it: a fresh CUDA context and the environment given, a
// string of NAME='value' words or "env -u NAME ..." put before the command. The result file
// goes in `dir`; a cell that writes none throws ResultsError naming the file.
struct CellThroughCli {
  CommandResult command;
  CellResult cell;
};

inline CellThroughCli cell_through_cli(const TempDir& dir, const std::string& backend,
                                       const std::string& workload,
                                       const std::string& environment = "") {
  static int count = 0;
  std::string out = dir.file(backend + "-" + workload + "-" + std::to_string(++count) + ".json");
  std::string wl = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads/" + workload + ".json";
  CellThroughCli r;
  r.command = run_command(
      environment + " " +
      memrel_command("cell --backend " + backend + " --workload '" + wl + "' --out '" + out + "'"));
  r.cell = cell_from_json(read_json_file(out));
  return r;
}

}  // namespace memrel::testing
