#include "platform/gpu_selection.hpp"

#include <cstdlib>
#include <set>
#include <stdexcept>

#include "platform/nvml.hpp"

namespace memrel {
namespace {

constexpr unsigned kMaxFakeGpus = 64;

std::vector<GpuSlot> machine_gpus() {
  if (const char* fake = std::getenv("MEMREL_FAKE_GPUS")) {
    std::string text = fake;
    // No leading zero, as no whole number of the command line takes one (the sixty-first
    // adversarial pass, c4-gpus-leading-zero-taken).
    if (text.empty() || text.size() > 2 || text[0] == '0' ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0 ||
        std::stoul(text) > kMaxFakeGpus)
      throw std::invalid_argument("MEMREL_FAKE_GPUS: '" + text + "' is not a count of 1 to " +
                                  std::to_string(kMaxFakeGpus) + " (digits, no leading zero)");
    std::vector<GpuSlot> gpus;
    for (unsigned i = 0; i < std::stoul(text); ++i) gpus.push_back({i, ""});
    return gpus;
  }
  nvml::Loaded loaded = nvml::query_system();
  if (!loaded.system) throw std::invalid_argument("--gpus: no GPU here (" + loaded.error + ")");
  std::vector<GpuSlot> gpus;
  for (std::size_t i = 0; i < loaded.system->gpus.size(); ++i)
    gpus.push_back({static_cast<unsigned>(i), loaded.system->gpus[i].uuid});
  if (gpus.empty()) throw std::invalid_argument("--gpus: NVML lists no GPU here");
  return gpus;
}

}  // namespace

std::vector<GpuSlot> select_gpus(const std::string& spec) {
  if (spec.empty()) throw std::invalid_argument("--gpus: empty (give all, or indices like 0,2)");
  std::vector<GpuSlot> gpus = machine_gpus();
  if (spec == "all") return gpus;
  std::vector<GpuSlot> chosen;
  std::set<unsigned> seen;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.size() > 4 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--gpus: '" + item +
                                  "' is not a GPU index (give all, or indices like 0,2)");
    if (item.size() > 1 && item[0] == '0')
      throw std::invalid_argument("--gpus: '" + item +
                                  "' has a leading zero (give all, or indices like 0,2)");
    unsigned index = static_cast<unsigned>(std::stoul(item));
    if (index >= gpus.size())
      throw std::invalid_argument("--gpus: no GPU " + item + " here (indices 0 to " +
                                  std::to_string(gpus.size() - 1) + ")");
    if (!seen.insert(index).second)
      throw std::invalid_argument("--gpus: GPU " + item + " given twice");
    chosen.push_back(gpus[index]);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return chosen;
}

std::map<std::string, std::string> gpu_environment(const GpuSlot& gpu) {
  return {{"CUDA_VISIBLE_DEVICES", gpu.uuid.empty() ? std::to_string(gpu.index) : gpu.uuid},
          {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
}

}  // namespace memrel
