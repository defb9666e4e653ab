#include "cli/python_module.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/exit_codes.hpp"
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
  const char* existing = std::getenv("PYTHONPATH");
  std::string path = scripts_dir() + (existing && *existing ? std::string(":") + existing : "");
  setenv("PYTHONPATH", path.c_str(), 1);
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
  const char* tmp = std::getenv("TMPDIR");
  std::string err_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/memrel-python-XXXXXX";
  int err = mkstemp(err_path.data());
  if (err < 0) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return result;
  }
  std::vector<std::string> words = command(package, args);
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid == 0) {
    set_pythonpath();
    dup2(err, STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    dprintf(STDERR_FILENO, "cannot run %s (%s)\n", argv[0], std::strerror(errno));
    _exit(exit_code::kInternalError);
  }
  close(err);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    result.exit_code = exit_code::kInternalError;
    result.error_text = std::string("cannot run ") + words[0] + ": " + std::strerror(errno);
  } else {
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : exit_code::kInternalError;
    std::ifstream in(err_path);
    std::stringstream text;
    text << in.rdbuf();
    result.error_text = text.str();
    while (!result.error_text.empty() && result.error_text.back() == '\n')
      result.error_text.pop_back();
    if (WIFSIGNALED(status))
      result.error_text += (result.error_text.empty() ? "" : "; ") +
                           std::string("killed by signal ") + std::to_string(WTERMSIG(status));
  }
  unlink(err_path.c_str());
  return result;
}

}  // namespace memrel::cli
