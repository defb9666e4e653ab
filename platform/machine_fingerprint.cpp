#include "platform/machine_fingerprint.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "platform/build_identity.hpp"
#include "platform/nvml.hpp"

#ifdef MEMREL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace memrel {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "";
}

std::string host_name() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

// The NVML device that CUDA calls `device_index`: CUDA_VISIBLE_DEVICES renumbers devices for
// CUDA but not for NVML. Returns -1 when the entry names no device NVML lists.
int nvml_index(int device_index, const std::vector<nvml::GpuSummary>& gpus) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return device_index;
  std::vector<std::string> entries;
  std::stringstream list(visible);
  for (std::string entry; std::getline(list, entry, ',');) entries.push_back(entry);
  if (device_index < 0 || static_cast<std::size_t>(device_index) >= entries.size()) return -1;
  const std::string& entry = entries[static_cast<std::size_t>(device_index)];
  if (entry.rfind("GPU-", 0) == 0) {
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (gpus[i].uuid.rfind(entry, 0) == 0) return static_cast<int>(i);
    }
    return -1;
  }
  try {
    return std::stoi(entry);
  } catch (const std::exception&) {
    return -1;
  }
}

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

template <typename T>
void read_optional(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  if (!j.contains(key) || j[key].is_null()) return;
  try {
    out = j[key].get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("fingerprint.") + key + ": wrong type");
  }
}

void read_string(const nlohmann::json& j, const char* key, std::string& out) {
  std::optional<std::string> v;
  read_optional(j, key, v);
  out = v.value_or("");
}

}  // namespace

const std::vector<std::string>& fingerprint_fields() {
  static const std::vector<std::string> fields = {
      "gpu_model", "gpu_uuid", "driver_version", "cuda_driver_version", "cuda_runtime_version",
      "cpu_model", "host",     "memrel_commit",  "runtime_versions"};
  return fields;
}

const std::vector<std::string>& machine_fields() {
  static const std::vector<std::string> fields = {
      "gpu_model", "gpu_uuid", "driver_version", "cuda_driver_version", "cuda_runtime_version",
      "cpu_model", "host"};
  return fields;
}

MachineFingerprint machine_fingerprint(int device_index) {
  MachineFingerprint f;
  f.cpu_model = cpu_model();
  f.host = host_name();
  // The source it was built from, not the one a checkout holds when it runs.
  f.memrel_commit = memrel_build_commit();
  nvml::Loaded nvml = nvml::query_system();
  if (nvml.system) {
    f.driver_version = nvml.system->driver_version;
    f.cuda_driver_version = nvml.system->cuda_driver_version;
    int index = nvml_index(device_index, nvml.system->gpus);
    if (index >= 0 && static_cast<std::size_t>(index) < nvml.system->gpus.size()) {
      f.gpu_model = nvml.system->gpus[static_cast<std::size_t>(index)].name;
      f.gpu_uuid = nvml.system->gpus[static_cast<std::size_t>(index)].uuid;
    }
  }
#ifdef MEMREL_HAVE_CUDA
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) f.cuda_runtime_version = runtime;
#endif
  return f;
}

nlohmann::json to_json(const MachineFingerprint& f) {
  return {{"gpu_model", optional_json(f.gpu_model)},
          {"gpu_uuid", optional_json(f.gpu_uuid)},
          {"driver_version", optional_json(f.driver_version)},
          {"cuda_driver_version", optional_json(f.cuda_driver_version)},
          {"cuda_runtime_version", optional_json(f.cuda_runtime_version)},
          {"cpu_model", f.cpu_model},
          {"host", f.host},
          {"memrel_commit", f.memrel_commit},
          {"runtime_versions", f.runtime_versions}};
}

MachineFingerprint fingerprint_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("fingerprint: not an object");
  MachineFingerprint f;
  read_optional(j, "gpu_model", f.gpu_model);
  read_optional(j, "gpu_uuid", f.gpu_uuid);
  read_optional(j, "driver_version", f.driver_version);
  read_optional(j, "cuda_driver_version", f.cuda_driver_version);
  read_optional(j, "cuda_runtime_version", f.cuda_runtime_version);
  read_string(j, "cpu_model", f.cpu_model);
  read_string(j, "host", f.host);
  read_string(j, "memrel_commit", f.memrel_commit);
  if (auto it = j.find("runtime_versions"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      throw std::invalid_argument("fingerprint: runtime_versions: not an object");
    for (const auto& [runtime, version] : it->items()) {
      if (!version.is_string())
        throw std::invalid_argument("fingerprint: runtime_versions: " + runtime + ": not a string");
      f.runtime_versions[runtime] = version.get<std::string>();
    }
  }
  // Files from before the families recorded one runtime as a field of its own, "<name>_version".
  for (const auto& [key, value] : j.items()) {
    const std::string suffix = "_version";
    bool own_field = false;
    for (const auto& field : fingerprint_fields()) own_field = own_field || field == key;
    if (own_field || !value.is_string() || key.size() <= suffix.size() ||
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    f.runtime_versions.emplace(key.substr(0, key.size() - suffix.size()), value.get<std::string>());
  }
  return f;
}

std::string machine_id(const MachineFingerprint& f) {
  const nlohmann::json j = to_json(f);
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a, 64 bits
  for (const std::string& field : machine_fields()) {
    for (unsigned char c : field + "=" + j[field].dump() + ";") {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::vector<std::string> fingerprint_differences(const MachineFingerprint& a,
                                                 const MachineFingerprint& b) {
  const nlohmann::json ja = to_json(a), jb = to_json(b);
  std::vector<std::string> out;
  for (const std::string& field : fingerprint_fields()) {
    if (ja[field] != jb[field]) out.push_back(field);
  }
  return out;
}

}  // namespace memrel
