// DeviceProbe through the CUDA runtime (device used) and NVML (process used).
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include "platform/cuda_error.hpp"
#include "platform/device_probe.hpp"
#include "platform/nvml.hpp"
#include "platform/unavailable.hpp"

namespace memrel {
namespace {

class CudaDeviceProbe : public DeviceProbe {
 public:
  explicit CudaDeviceProbe(DeviceDescription d) : description_(std::move(d)) {}

  std::uint64_t used_bytes() const override {
    std::size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    return total_bytes - free_bytes;
  }

  std::optional<std::uint64_t> process_bytes(std::string* why) const override {
    return nvml::process_used_bytes(description_.pci_bus_id, static_cast<unsigned>(getpid()), why);
  }

  const DeviceDescription& description() const override { return description_; }

 private:
  DeviceDescription description_;
};

}  // namespace

void preload_device_driver() {
  // The name the CUDA runtime itself opens; it finds this handle (dlopen of a loaded library).
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL) == nullptr) dlerror();
}

std::unique_ptr<DeviceProbe> DeviceProbe::create() {
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    throw Unavailable(std::string("no CUDA device: ") +
                      (rc == cudaSuccess ? "the driver reports none" : cudaGetErrorString(rc)));
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice(0)");
  check_cuda(cudaFree(nullptr), "cudaFree(0) (context creation)");
  DeviceDescription d;
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  d.name = prop.name;
  d.total_bytes = prop.totalGlobalMem;
  d.compute_capability_major = prop.major;
  d.compute_capability_minor = prop.minor;
  char bus[64] = {0};
  check_cuda(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), "cudaDeviceGetPCIBusId");
  d.pci_bus_id = bus;
  cudaRuntimeGetVersion(&d.cuda_runtime_version);
  cudaDriverGetVersion(&d.cuda_driver_version);
  return std::make_unique<CudaDeviceProbe>(d);
}

}  // namespace memrel
