// RAPIDS Memory Manager's resources (librmm-cu13, scripts/install-rmm), each over cudaMalloc or
// the driver's pool, as RMM's own benchmarks configure them.
#include <stdexcept>

#include "allocators/availability.hpp"
#include "allocators/backend_family.hpp"
#include "allocators/rmm/rmm_backends.hpp"

namespace memrel {
namespace {

// Device availability, or why this build has no RMM (allocators/rmm/CMakeLists.txt).
Availability rmm_backend_availability() {
#ifdef MEMREL_RMM_UNAVAILABLE_REASON
  return {false, "memrel was built without RMM: " MEMREL_RMM_UNAVAILABLE_REASON};
#else
  return device_backend_availability();
#endif
}

class RmmFamily : public BackendFamily {
 public:
  std::string name() const override { return "rmm"; }

  // rmm-pool's sizes, as RMM's pool_memory_resource takes them when it is made (in the cell).
  std::vector<BackendSetting> settings(const std::string& root) const override {
    if (root != "rmm-pool") return {};
    using T = BackendSetting::Type;
    const double most = static_cast<double>(std::uint64_t{1} << 50);
    return {{"initial",
             T::kBytes,
             0,
             most,
             false,
             {},
             "0",
             "pool_memory_resource's initial_pool_size, taken when the cell starts"},
            {"maximum",
             T::kBytes,
             1,
             most,
             false,
             {},
             "",
             "pool_memory_resource's maximum_pool_size: the pool grows no further"}};
  }

  BackendInfo configure(const BackendInfo& root, const BackendSettings& settings) const override {
    std::uint64_t initial = settings.count("initial") ? setting_number(settings.at("initial")) : 0;
    std::optional<std::uint64_t> maximum;
    if (settings.count("maximum")) maximum = setting_number(settings.at("maximum"));
    if (maximum && *maximum < initial) throw std::invalid_argument("maximum is below initial");
    BackendInfo b = root;
    b.name = backend_spec_name(root.name, settings);
    b.description =
        "RMM pool_memory_resource over cudaMalloc, " + backend_spec_name("", settings).substr(1);
    b.settings = settings;
    b.settings_root = root.name;
    b.apply_line = "rmm.mr.PoolMemoryResource(rmm.mr.CudaMemoryResource(), initial_pool_size=" +
                   std::to_string(initial) +
                   (maximum ? ", maximum_pool_size=" + std::to_string(*maximum) : "") + ")";
    b.make = [initial, maximum] { return make_rmm_pool(initial, maximum); };
    return b;
  }

  std::vector<BackendInfo> backends() const override {
    const std::string family = name();
    return {
        {"rmm-pool",
         family,
         "RMM pool_memory_resource over cudaMalloc, initial size 0 (grows on demand)",
         "nothing: RMM keeps the pool's blocks until it is destroyed",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         [] { return make_rmm_pool(0, std::nullopt); }},
        {"rmm-arena",
         family,
         "RMM arena_memory_resource over cudaMalloc, global arena half the free memory (whole GiB)",
         "nothing: the arena is reserved whole while it lives",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_arena},
        {"rmm-binning",
         family,
         "RMM binning_memory_resource over a pool, bins 256 KiB..4 MiB (RMM's benchmark)",
         "nothing: bins and pool keep their memory",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_binning},
        {"rmm-async",
         family,
         "RMM cuda_async_memory_resource (the driver's stream-ordered pool)",
         "cudaMemPoolTrimTo(0) on RMM's pool",
         MemorySpace::kDevice,
         {},
         rmm_backend_availability,
         make_rmm_async},
    };
  }
};

}  // namespace

const BackendFamily& rmm_family() {
  static const RmmFamily family;
  return family;
}

}  // namespace memrel
