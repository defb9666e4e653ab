#include "platform/run_context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "platform/machine_fingerprint.hpp"
#include "platform/nvml.hpp"

#ifdef MEMREL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifndef MEMREL_VERSION
#define MEMREL_VERSION "unknown"
#endif
#ifndef MEMREL_SOURCE_DIR
#define MEMREL_SOURCE_DIR "."
#endif

namespace memrel {
namespace {

std::string command_output(const std::string& command) {
  std::array<char, 256> buffer{};
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string utc_now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

nlohmann::json run_context() {
  nlohmann::json c;
  c["started"] = utc_now_iso8601();
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  c["host"] = host;
  struct utsname u {};
  uname(&u);
  c["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  const MachineFingerprint fingerprint = machine_fingerprint(0);
  c["cpu"] = fingerprint.cpu_model;
  c["cpu_count"] = sysconf(_SC_NPROCESSORS_ONLN);
  c["memrel_version"] = MEMREL_VERSION;
  // A source tree copied without .git (as to a lent GPU machine) names its commit this way.
  const char* given_commit = std::getenv("MEMREL_GIT_COMMIT");
  std::string commit = given_commit != nullptr ? given_commit
                                               : command_output("git -C '" MEMREL_SOURCE_DIR
                                                                "' rev-parse HEAD 2>/dev/null");
  c["git_commit"] = commit.empty() ? nlohmann::json() : nlohmann::json(commit);
  std::string dirty = command_output("git -C '" MEMREL_SOURCE_DIR
                                     "' status --porcelain --untracked-files=no 2>/dev/null");
  c["git_dirty"] = !dirty.empty();
  nvml::Loaded nvml = nvml::query_system();
  if (nvml.system) {
    c["driver_version"] = nvml.system->driver_version;
    c["cuda_driver_version"] = nvml.system->cuda_driver_version;
    c["gpus"] = nlohmann::json::array();
    for (const auto& g : nvml.system->gpus) {
      c["gpus"].push_back({{"name", g.name}, {"uuid", g.uuid}, {"total_bytes", g.total_bytes}});
    }
    c["gpu"] =
        nvml.system->gpus.empty() ? nlohmann::json() : nlohmann::json(nvml.system->gpus[0].name);
  } else {
    c["gpu"] = nullptr;
    c["gpus"] = nlohmann::json::array();
    c["gpu_note"] = nvml.error;
  }
#ifdef MEMREL_HAVE_CUDA
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);  // a constant of the linked runtime: creates no context
  c["cuda_runtime_version"] = runtime;
#else
  c["cuda_runtime_version"] = nullptr;
#endif
  // What a latency figure depends on besides the code (docs/results-schema.md): the gate judges
  // latency only between runs with equal fingerprints.
  c["fingerprint"] = to_json(fingerprint);
  return c;
}

}  // namespace memrel
