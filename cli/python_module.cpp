#include "cli/python_module.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "platform/child_process.hpp"

#ifndef MEMREL_SOURCE_DIR
#define MEMREL_SOURCE_DIR "."
#endif

namespace memrel::cli {
namespace {

std::string scripts_dir() { return std::string(MEMREL_SOURCE_DIR) + "/scripts"; }

std::string python() {
  const char* env = std::getenv("MEMREL_PYTHON");
  return env && *env ? env : "python3";
}

// Where the package is missing, say so instead of letting Python say "No module named".
std::string missing_package(const std::string& package) {
  struct stat st {};
  const std::string main = scripts_dir() + "/" + package + "/__main__.py";
  if (stat(main.c_str(), &st) == 0) return "";
  return scripts_dir() + "/" + package + " not found (memrel reads its Python packages from the " +
         "source tree it was built from)";
}

std::string pythonpath() {
  const char* existing = std::getenv("PYTHONPATH");
  return scripts_dir() + (existing && *existing ? std::string(":") + existing : "");
}

std::vector<std::string> command(const std::string& package, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {python(), "-m", package};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

int exec_python_module(const std::string& who, const std::string& package,
                       const std::vector<std::string>& args, const std::string& needs) {
  if (std::string missing = missing_package(package); !missing.empty()) {
    std::cerr << who << ": " << missing << "\n";
    return exit_code::kInternalError;
  }
  setenv("PYTHONPATH", pythonpath().c_str(), 1);
  std::vector<std::string> words = command(package, args);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execvp(argv[0], argv.data());
  std::cerr << who << ": cannot run " << words[0] << " (" << std::strerror(errno) << "): " << needs
            << "; set MEMREL_PYTHON to choose the interpreter\n";
  return exit_code::kInternalError;
}

PythonResult run_python_module(const std::string& package, const std::vector<std::string>& args) {
  PythonResult result;
  if (std::string missing = missing_package(package); !missing.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = missing;
    return result;
  }
  ChildSpec spec;
  spec.args = command(package, args);
  spec.search_path = true;
  // In our group: a Ctrl-C the user gives reaches the importer as it reaches us.
  spec.own_process_group = false;
  spec.environment["PYTHONPATH"] = pythonpath();
  int status = 0;
  try {
    std::cout.flush();
    std::cerr.flush();
    int err = anonymous_file();
    spec.stderr_fd = err;
    status = wait_child(start_child(spec));
    result.error_text = read_whole_fd(err);
    close(err);
  } catch (const std::runtime_error& e) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = std::string("cannot run ") + spec.args[0] + ": " + e.what();
    return result;
  }
  while (!result.error_text.empty() && result.error_text.back() == '\n')
    result.error_text.pop_back();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : exit_code::kInternalError;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && result.error_text.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = "cannot run " + spec.args[0] + " (not found or not executable)";
  }
  if (WIFSIGNALED(status))
    result.error_text += (result.error_text.empty() ? "" : "; ") +
                         std::string("killed by signal ") + std::to_string(WTERMSIG(status));
  return result;
}

}  // namespace memrel::cli
