#include "cli/python_module.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/exit_codes.hpp"
#include "cli/python_probe.hpp"
#include "platform/child_process.hpp"
#include "platform/install_layout.hpp"

namespace memrel::cli {
namespace {

std::string scripts_dir() { return install_layout().python_dir; }

std::string python() {
  const char* env = std::getenv("MEMREL_PYTHON");
  return env && *env ? env : "python3";
}

// Where the package is missing, say so instead of letting Python say "No module named".
std::string missing_package(const std::string& package) {
  struct stat st {};
  const std::string main = scripts_dir() + "/" + package + "/__main__.py";
  if (stat(main.c_str(), &st) == 0) return "";
  return scripts_dir() + "/" + package + " not found (" + install_layout().description() + ")";
}

void set_pythonpath() {
  setenv("PYTHONPATH", python_path(scripts_dir(), std::getenv("PYTHONPATH")).c_str(), 1);
}

// "" when python() is a Python 3 interpreter, else the line that says what it is instead.
std::string interpreter_problem() {
  std::string problem = python_interpreter_problem(python());
  if (problem.empty()) return "";
  const char* env = std::getenv("MEMREL_PYTHON");
  return python() + (env && *env ? " (MEMREL_PYTHON) " : " ") + problem;
}

std::vector<std::string> command(const std::string& package, const std::vector<std::string>& args) {
  return python_module_argv(python(), scripts_dir(), package, args);
}

}  // namespace

std::string python_path(const std::string& scripts, const char* existing) {
  std::string path = scripts;
  std::string rest = existing ? existing : "";
  // An absolute entry that is the working folder under another spelling (/a/b/., a link to it)
  // is the working folder all the same: its modules would shadow the standard library's.
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::canonical(".", ec);
  auto is_cwd = [&](const std::string& entry) {
    std::error_code entry_ec;
    std::filesystem::path p = std::filesystem::canonical(entry, entry_ec);
    return !ec && !entry_ec && p == cwd;
  };
  for (std::size_t start = 0; start <= rest.size();) {
    std::size_t colon = rest.find(':', start);
    if (colon == std::string::npos) colon = rest.size();
    std::string entry = rest.substr(start, colon - start);
    // "" and relative entries name the working folder too.
    if (!entry.empty() && entry[0] == '/' && !is_cwd(entry)) path += ":" + entry;
    start = colon + 1;
  }
  return path;
}

std::vector<std::string> python_verbosity_arguments(int verbosity) {
  if (verbosity < 0) return {"-q"};
  if (verbosity > 0) return {"-v"};
  return {};
}

std::vector<std::string> python_module_argv(const std::string& python, const std::string& scripts,
                                            const std::string& package,
                                            const std::vector<std::string>& args) {
  std::vector<std::string> argv = {python, scripts + "/memrel_entry.py", package};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

int exec_python_module(const std::string& who, const std::string& package,
                       const std::vector<std::string>& args, const std::string& needs) {
  if (std::string missing = missing_package(package); !missing.empty()) {
    std::cerr << who << ": " << missing << "\n";
    return exit_code::kInternalError;
  }
  if (std::string problem = interpreter_problem(); !problem.empty()) {
    std::cerr << who << ": " << problem << ": " << needs
              << "; set MEMREL_PYTHON to choose the interpreter\n";
    return exit_code::kInternalError;
  }
  set_pythonpath();
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
  if (std::string problem = interpreter_problem(); !problem.empty()) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = problem + "; set MEMREL_PYTHON to choose the interpreter";
    return result;
  }
  ChildSpec spec;
  spec.args = command(package, args);
  spec.search_path = true;
  // In our group: a Ctrl-C the user gives reaches the importer as it reaches us.
  spec.own_process_group = false;
  spec.environment["PYTHONPATH"] = python_path(scripts_dir(), std::getenv("PYTHONPATH"));
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
