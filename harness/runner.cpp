#include "harness/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "allocators/backend_table.hpp"
#include "harness/run_summary.hpp"
#include "harness/trace_plan.hpp"
#include "harness/workload.hpp"
#include "platform/run_context.hpp"

namespace memrel {
namespace {

std::string temp_path(const std::string& what) {
  const char* dir = std::getenv("TMPDIR");
  std::string base = (dir && *dir) ? dir : "/tmp";
  char tmpl[4096];
  std::snprintf(tmpl, sizeof tmpl, "%s/memrel-%s-XXXXXX", base.c_str(), what.c_str());
  int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error(std::string("cannot create a temporary file in ") + base);
  close(fd);
  return tmpl;
}

std::string tail_of_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string s = buffer.str();
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

CellResult failed_cell(const std::string& backend, const std::string& workload,
                       const std::string& source, const std::string& status,
                       const std::string& reason) {
  CellResult c;
  c.backend = backend;
  c.workload = workload;
  c.workload_source = source;
  c.status = status;
  c.reason = reason;
  return c;
}

struct ChildExit {
  pid_t pid = 0;
  int status = 0;
  bool timed_out = false;
};

// fork + exec of `args` with `environment` added; stdout to /dev/null, stderr to err_path;
// killed (its whole process group) after timeout_s.
ChildExit run_child(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& environment,
                    const std::string& err_path, std::uint64_t timeout_s) {
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe work until exec.
    setpgid(0, 0);
    int err = open(err_path.c_str(), O_WRONLY | O_TRUNC);
    if (err >= 0) dup2(err, STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    for (const auto& [k, v] : environment) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ChildExit child;
  child.pid = pid;
  auto deadline = start + std::chrono::seconds(timeout_s);
  while (true) {
    pid_t done = waitpid(pid, &child.status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &child.status, 0);
      child.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return child;
}

std::map<std::string, std::string> child_environment(const RunOptions& options,
                                                     const BackendInfo& backend) {
  std::map<std::string, std::string> env = backend.cell_environment;
  if (!options.module_loading.empty()) env["CUDA_MODULE_LOADING"] = options.module_loading;
  return env;
}

// `memrel --backends-dir DIR cell --backend B ...`: the global option before the subcommand.
std::vector<std::string> cell_command(const RunOptions& options, const std::string& backend) {
  std::vector<std::string> args = {options.memrel_executable};
  if (!options.backends_dir.empty()) {
    args.push_back("--backends-dir");
    args.push_back(options.backends_dir);
  }
  args.insert(args.end(), {"cell", "--backend", backend});
  return args;
}

}  // namespace

std::string check_backend_process(const RunOptions& options, const std::string& backend_name) {
  const BackendInfo backend = resolve_backend(backend_name, options.backends_dir);
  std::string err_path = temp_path("stderr");
  std::vector<std::string> args = cell_command(options, backend_name);
  args.push_back("--check");
  ChildExit child =
      run_child(args, child_environment(options, backend), err_path, options.cell_timeout_s);
  std::string error = tail_of_file(err_path, 2000);
  std::remove(err_path.c_str());
  if (!child.timed_out && WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0) return "";
  const std::string prefix = "memrel: ";
  if (error.compare(0, prefix.size(), prefix) == 0) error = error.substr(prefix.size());
  if (child.timed_out)
    return backend.file + ": loading the library took longer than the cell timeout";
  if (WIFSIGNALED(child.status))
    return backend.file + ": loading the library killed the process with signal " +
           std::to_string(WTERMSIG(child.status)) + (error.empty() ? "" : ": " + error);
  return error.empty() ? backend.file + ": the check exited with code " +
                             std::to_string(WEXITSTATUS(child.status))
                       : error;
}

CellResult run_cell_process(const RunOptions& options, const std::string& backend_arg,
                            const std::string& workload_path, const std::string& workload_name) {
  const BackendInfo backend = resolve_backend(backend_arg, options.backends_dir);
  const std::string& backend_name = backend.name;
  std::string out_path = temp_path("cell");
  std::string err_path = temp_path("stderr");
  std::vector<std::string> args = cell_command(options, backend_arg);
  args.insert(args.end(), {"--workload", workload_path, "--out", out_path, "--host-capacity",
                           std::to_string(options.cell.host_capacity_bytes), "--trace-scale",
                           trace_scale_text(options.cell.trace_scale_divisor)});
  auto start = std::chrono::steady_clock::now();
  ChildExit child =
      run_child(args, child_environment(options, backend), err_path, options.cell_timeout_s);
  const int status = child.status;
  const bool timed_out = child.timed_out;
  std::uint64_t wall_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  std::string stderr_tail = tail_of_file(err_path, 2000);
  CellResult cell;
  if (timed_out) {
    cell = failed_cell(
        backend_name, workload_name, workload_path, "timeout",
        "killed after the cell timeout of " + std::to_string(options.cell_timeout_s) + " s");
  } else if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    cell = failed_cell(backend_name, workload_name, workload_path, "crashed",
                       "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")" +
                           (stderr_tail.empty() ? "" : ": " + stderr_tail));
  } else {
    try {
      cell = read_cell_file(out_path);
    } catch (const ResultsError& e) {
      cell = failed_cell(backend_name, workload_name, workload_path, "crashed",
                         "exited with code " + std::to_string(WEXITSTATUS(status)) +
                             " without a usable result (" + e.what() + ")" +
                             (stderr_tail.empty() ? "" : ": " + stderr_tail));
    }
  }
  cell.wall_ns = wall_ns;
  std::remove(out_path.c_str());
  std::remove((out_path + ".tmp." + std::to_string(child.pid)).c_str());
  std::remove(err_path.c_str());
  return cell;
}

RunResults run_suite(const RunOptions& options, std::ostream& progress) {
  RunResults run;
  run.context = run_context();
  run.context["options"] = {
      {"backends", options.backends},
      {"backends_dir", options.backends_dir},
      {"workloads", options.workload_paths},
      {"cell_timeout_s", options.cell_timeout_s},
      {"host_capacity_bytes", options.cell.host_capacity_bytes},
      {"trace_scale", trace_scale_text(options.cell.trace_scale_divisor)},
      {"cuda_module_loading",
       options.module_loading.empty() ? "default (unset)" : options.module_loading}};
  std::vector<std::pair<std::string, std::string>> workloads;  // path, name
  for (const auto& path : options.workload_paths)
    workloads.emplace_back(path, parse_workload_file(path).name);
  // What each backend is and what its release does, so that a results file says it even for
  // backends that are not in memrel's table (backend files).
  run.context["backends"] = nlohmann::json::array();
  std::size_t total = options.backends.size() * workloads.size();
  RunProgress printer(progress, total, workloads.size());
  for (const auto& backend_arg : options.backends) {
    const BackendInfo backend = resolve_backend(backend_arg, options.backends_dir);
    const std::string& backend_name = backend.name;
    nlohmann::json described = {{"name", backend.name},
                                {"kind", backend_kind_name(backend.kind)},
                                {"space", memory_space_name(backend.space)},
                                {"description", backend.description},
                                {"release", backend.release}};
    if (!backend.file.empty()) described["file"] = backend.file;
    run.context["backends"].push_back(described);
    Availability availability = backend.availability();
    for (const auto& [path, name] : workloads) {
      CellResult cell = availability.available ? run_cell_process(options, backend_arg, path, name)
                                               : failed_cell(backend_name, name, path,
                                                             "unavailable", availability.reason);
      printer.cell_finished(cell);
      run.cells.push_back(std::move(cell));
    }
  }
  run.context["finished"] = utc_now_iso8601();
  return run;
}

}  // namespace memrel
