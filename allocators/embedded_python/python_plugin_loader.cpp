#include "allocators/embedded_python/python_plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include "allocators/availability.hpp"
#include "allocators/embedded_python/python_plugin_abi.hpp"
#include "platform/child_process.hpp"
#include "platform/executable_path.hpp"
#include "platform/install_layout.hpp"

// Both set by allocators/embedded_python/CMakeLists.txt where the plugin is built.
#ifndef MEMREL_EMBEDDED_PYTHON
#define MEMREL_EMBEDDED_PYTHON "python3"
#endif
#ifndef MEMREL_EMBEDDED_PYTHON_VERSION
#define MEMREL_EMBEDDED_PYTHON_VERSION "(none)"
#endif

namespace memrel {
namespace {

bool is_file(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string non_empty_env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

// The plugin's entry points (allocators/embedded_python/python_plugin.cpp).
using AbiFn = int (*)();
using MakeFn = Allocator* (*)(const char* python, const char* module_name,
                              const char* module_source, const char* backend);
using VersionsFn = const char* (*)();

// Isolated (-I: no PYTHON* variable, no working folder, no user site at start-up, so no
// `sitecustomize.py` of the user's runs), then the module path the cell's interpreter sees
// rebuilt without the working folder: the interpreter's own folders, then PYTHONPATH's absolute
// entries (after them: they add packages, never stand in for the standard library's), then the
// user's site-packages under the home folder (not PYTHONUSERBASE's, which `site` reads despite
// -I: a folder it named had its .pth files run), put on the path with nothing in it run:
// site.addsitedir ran its .pth files during `memrel list` (the tenth adversarial pass,
// c3-list-framework-probe-usersite-pth), as scripts/memrel_entry.py does. docs/inputs.md, "Code".
constexpr const char* kIsolatedPath = R"(
import os, sys
_cwd = {os.getcwd(), os.path.realpath(os.getcwd())}
_keep = lambda p: p and os.path.isabs(p) and os.path.realpath(p) not in _cwd
sys.path[:] = [p for p in sys.path if _keep(p)] + [
    p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if _keep(p)]
_user = os.path.join(os.environ.get('HOME', ''), '.local', 'lib',
                     'python%d.%d' % sys.version_info[:2], 'site-packages')
if _keep(_user) and os.path.isdir(_user):
    sys.path.append(_user)
)";

// Runs `python -I -c code` (the path as above) and returns its first output line (stdout and
// stderr together), or why it could not run. Never throws: availability is a fact to report.
std::string first_line_of(const std::string& python, const std::string& code) {
  try {
    int out = anonymous_file();
    ChildSpec spec;
    // -B: the probe writes no `__pycache__` into the frameworks' folders (cli/python_module.cpp).
    spec.args = {python, "-I", "-B", "-c", std::string(kIsolatedPath) + code};
    spec.stdout_fd = out;
    spec.stderr_fd = out;
    spec.search_path = python.find('/') == std::string::npos;
    spec.own_process_group = false;
    int status = wait_child(start_child(spec));
    std::string text = read_whole_fd(out);
    close(out);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && text.empty())
      return "cannot run " + python + " (set MEMREL_PYTHON to the Python that has the framework)";
    std::string line = text.substr(0, text.find('\n'));
    if (line.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      return python + " failed running the framework probe (status " + std::to_string(status) + ")";
    return line;
  } catch (const std::exception& e) {
    return std::string("cannot run ") + python + ": " + e.what();
  }
}

// The probe every framework's probe runs after: the interpreter must be the Python version the
// plugin embeds, since the plugin's libpython loads that version's standard library and the
// frameworks' compiled modules are built per version.
std::string version_check() {
  return std::string("import sys\nif '%d.%d' % sys.version_info[:2] != '") +
         MEMREL_EMBEDDED_PYTHON_VERSION +
         "':\n"
         "    print(sys.executable + ' is Python %d.%d; the plugin embeds Python " +
         MEMREL_EMBEDDED_PYTHON_VERSION +
         " (set MEMREL_PYTHON, or rebuild against this Python)' % sys.version_info[:2])\n"
         "    sys.exit(0)\n";
}

void* load_plugin() {
  const std::string path = python_plugin_path();
  if (path.empty()) throw BackendUnavailable("the embedded-Python plugin is missing");
  // RTLD_GLOBAL: the frameworks' compiled extension modules resolve the Python C API against
  // libpython's symbols, which must therefore be in the global namespace (as in a python
  // executable). Never unloaded: an interpreter cannot be finalised and started again safely.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    throw BackendUnavailable("cannot load " + path + ": " + (err ? err : "unknown dlopen error"));
  }
  auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "memrel_python_plugin_abi"));
  if (abi == nullptr) throw BackendUnavailable(path + " is not a memrel embedded-Python plugin");
  if (abi() != kPythonPluginAbi) {
    throw BackendUnavailable(path + " was built for plugin interface " + std::to_string(abi()) +
                             ", this memrel needs " + std::to_string(kPythonPluginAbi) +
                             " (rebuild the target memrel_python)");
  }
  return handle;
}

}  // namespace

std::string frameworks_python() {
  std::string env = non_empty_env("MEMREL_PYTHON");
  return env.empty() ? std::string(MEMREL_EMBEDDED_PYTHON) : env;
}

std::string python_plugin_path() {
  if (std::string env = non_empty_env("MEMREL_PYTHON_PLUGIN"); !env.empty())
    return is_file(env) ? env : std::string();
  for (const std::string& dir : {install_layout().library_dir, executable_dir()}) {
    if (std::string path = dir + "/" + kPythonPluginFile; is_file(path)) return path;
  }
  return std::string();
}

Availability python_framework_availability(const std::string& probe) {
#ifndef MEMREL_PYTHON_PLUGIN
#ifndef MEMREL_PYTHON_PLUGIN_SKIPPED
#define MEMREL_PYTHON_PLUGIN_SKIPPED "no Python embedding files"
#endif
  return {false,
          "memrel was built without the embedded-Python plugin: " MEMREL_PYTHON_PLUGIN_SKIPPED
          " (docs/frameworks.md)"};
#endif
  if (python_plugin_path().empty()) {
    if (std::string env = non_empty_env("MEMREL_PYTHON_PLUGIN"); !env.empty())
      return {false, "MEMREL_PYTHON_PLUGIN=" + env + " is not a file"};
    return {false, std::string("the embedded-Python plugin ") + kPythonPluginFile +
                       " is missing from " + install_layout().library_dir +
                       " (build or install the target memrel_python)"};
  }
  // Each probe runs once per process and Python: `memrel list` asks every backend.
  static std::mutex mutex;
  static std::map<std::string, std::string> answers;
  const std::string python = frameworks_python();
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto key = python + '\n' + probe;
    auto found = answers.find(key);
    if (found == answers.end())
      found = answers.emplace(key, first_line_of(python, version_check() + probe)).first;
    why = found->second;
  }
  if (!why.empty()) return {false, why};
  return device_backend_availability();
}

std::unique_ptr<Allocator> make_python_allocator(const std::string& module_name,
                                                 const std::string& module_source,
                                                 const std::string& backend) {
  auto make = reinterpret_cast<MakeFn>(dlsym(load_plugin(), "memrel_python_make"));
  if (make == nullptr)
    throw BackendUnavailable(python_plugin_path() + " has no memrel_python_make");
  return std::unique_ptr<Allocator>(make(frameworks_python().c_str(), module_name.c_str(),
                                         module_source.c_str(), backend.c_str()));
}

std::map<std::string, std::string> loaded_python_framework_versions() {
  std::map<std::string, std::string> out;
  const std::string path = python_plugin_path();
  if (path.empty()) return out;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return out;
  // "name=version" lines.
  if (auto versions = reinterpret_cast<VersionsFn>(dlsym(handle, "memrel_python_versions"))) {
    std::string text = versions() ? versions() : "";
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      if (auto eq = line.find('='); eq != std::string::npos)
        out[line.substr(0, eq)] = line.substr(eq + 1);
      start = end + 1;
    }
  }
  dlclose(handle);  // drops only the reference RTLD_NOLOAD added
  return out;
}

}  // namespace memrel
