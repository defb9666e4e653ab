// Which GPUs a run spreads its cells over (`memrel run --gpus`), by NVML's index (the index
// nvidia-smi prints) and UUID. A child is pinned to one by CUDA_VISIBLE_DEVICES.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace memrel {

struct GpuSlot {
  unsigned index = 0;
  std::string uuid;  // NVML's "GPU-..."; empty for a fake GPU
};

// "all", or indices "0,2,...". Throws std::invalid_argument, one line naming --gpus, for an
// empty, malformed, repeated or absent index, or when there is no GPU at all.
//
// MEMREL_FAKE_GPUS=N stands for a machine of N GPUs without UUIDs: it lets the scheduling be
// tested where there is none (host backends run one per "GPU"); NVML is not asked then.
std::vector<GpuSlot> select_gpus(const std::string& spec);

// What a child pinned to `gpu` gets: CUDA_VISIBLE_DEVICES (its UUID, else its index, read in
// PCI bus order like NVML's), and CUDA_DEVICE_ORDER=PCI_BUS_ID.
std::map<std::string, std::string> gpu_environment(const GpuSlot& gpu);

}  // namespace memrel
