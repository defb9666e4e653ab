#include "platform/nvml.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <mutex>

namespace memrel::nvml {
namespace {

// The few NVML declarations memrel uses, with the ABI of nvml.h (CUDA 12/13). Declared here
// because nvml.h is not installed on CPU-only machines, where memrel must still build.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kSuccess = 0;
constexpr nvmlReturn_t kInsufficientSize = 7;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlProcessInfo_t {  // nvmlProcessInfo_v2_t, used by the _v3 process query
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

struct Api {
  void* handle = nullptr;
  std::string error;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*get_count)(unsigned int*) = nullptr;
  nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*pci)(nvmlDevice_t, void*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*cuda_version)(int*) = nullptr;
  nvmlReturn_t (*processes)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
};

template <typename F>
bool bind(void* handle, const char* symbol, F* out, std::string* error) {
  *out = reinterpret_cast<F>(dlsym(handle, symbol));
  if (*out == nullptr) {
    *error = std::string("libnvidia-ml.so.1 lacks ") + symbol;
    return false;
  }
  return true;
}

const Api& api() {
  static Api a;
  static std::once_flag once;
  static pid_t initialised_in = 0;
  std::call_once(once, [] {
    a.handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (a.handle == nullptr) {
      a.error = "NVML not found (libnvidia-ml.so.1 comes with the NVIDIA driver): no GPU driver";
      return;
    }
    std::string& e = a.error;
    void* h = a.handle;
    if (!bind(h, "nvmlInit_v2", &a.init, &e) ||
        !bind(h, "nvmlDeviceGetCount_v2", &a.get_count, &e) ||
        !bind(h, "nvmlDeviceGetHandleByIndex_v2", &a.by_index, &e) ||
        !bind(h, "nvmlDeviceGetHandleByPciBusId_v2", &a.by_pci, &e) ||
        !bind(h, "nvmlDeviceGetName", &a.name, &e) || !bind(h, "nvmlDeviceGetUUID", &a.uuid, &e) ||
        !bind(h, "nvmlDeviceGetMemoryInfo", &a.memory, &e) ||
        !bind(h, "nvmlSystemGetDriverVersion", &a.driver_version, &e) ||
        !bind(h, "nvmlSystemGetCudaDriverVersion_v2", &a.cuda_version, &e) ||
        !bind(h, "nvmlDeviceGetComputeRunningProcesses_v3", &a.processes, &e) ||
        !bind(h, "nvmlErrorString", &a.error_string, &e)) {
      a.handle = nullptr;
      return;
    }
    nvmlReturn_t rc = a.init();
    if (rc != kSuccess) {
      a.error = std::string("nvmlInit failed: ") + a.error_string(rc);
      a.handle = nullptr;
    }
    initialised_in = getpid();
  });
  // NVML's state does not survive fork(): a child of a process that initialised it gets
  // "Uninitialized" from every query. A forked child (a test's, a cell's) initialises it again.
  if (a.handle != nullptr && initialised_in != getpid()) {
    static std::mutex again;
    std::lock_guard<std::mutex> lock(again);
    if (initialised_in != getpid() && a.init() == kSuccess) initialised_in = getpid();
  }
  return a;
}

}  // namespace

Loaded query_system() {
  const Api& a = api();
  Loaded out;
  if (a.handle == nullptr) {
    out.error = a.error;
    return out;
  }
  SystemSummary s;
  char buffer[256] = {0};
  if (a.driver_version(buffer, sizeof buffer) == kSuccess) s.driver_version = buffer;
  a.cuda_version(&s.cuda_driver_version);
  unsigned int count = 0;
  nvmlReturn_t rc = a.get_count(&count);
  if (rc != kSuccess) {
    out.error = std::string("nvmlDeviceGetCount failed: ") + a.error_string(rc);
    return out;
  }
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    if (a.by_index(i, &device) != kSuccess) continue;
    GpuSummary g;
    if (a.name(device, buffer, sizeof buffer) == kSuccess) g.name = buffer;
    if (a.uuid(device, buffer, sizeof buffer) == kSuccess) g.uuid = buffer;
    nvmlMemory_t memory{};
    if (a.memory(device, &memory) == kSuccess) g.total_bytes = memory.total;
    s.gpus.push_back(g);
  }
  out.system = s;
  return out;
}

std::optional<std::uint64_t> process_used_bytes(const std::string& pci_bus_id, unsigned pid,
                                                std::string* error) {
  const Api& a = api();
  if (a.handle == nullptr) {
    *error = a.error;
    return std::nullopt;
  }
  nvmlDevice_t device = nullptr;
  nvmlReturn_t rc = a.by_pci(pci_bus_id.c_str(), &device);
  if (rc != kSuccess) {
    *error = "NVML does not know PCI bus " + pci_bus_id + ": " + a.error_string(rc);
    return std::nullopt;
  }
  // The list can grow between the two calls; ask again with room to spare.
  std::vector<nvmlProcessInfo_t> infos(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned int count = static_cast<unsigned int>(infos.size());
    rc = a.processes(device, &count, infos.data());
    if (rc == kInsufficientSize) {
      infos.resize(count + 64);
      continue;
    }
    if (rc != kSuccess) {
      *error = std::string("nvmlDeviceGetComputeRunningProcesses failed: ") + a.error_string(rc);
      return std::nullopt;
    }
    for (unsigned int i = 0; i < count; ++i) {
      if (infos[i].pid == pid) return infos[i].usedGpuMemory;
    }
    *error = "NVML lists no compute process with pid " + std::to_string(pid);
    return std::nullopt;
  }
  *error = "NVML process list kept growing";
  return std::nullopt;
}

}  // namespace memrel::nvml
