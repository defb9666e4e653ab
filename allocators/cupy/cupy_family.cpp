// CuPy's device memory allocators (its default MemoryPool, MemoryAsyncPool, no pool), through
// the embedded-Python plugin (allocators/embedded_python/); the framework's side is
// cupy_backend.py.
#include "allocators/backend_family.hpp"
#include "allocators/embedded_python/python_plugin_loader.hpp"
#include "cupy_backend_py.hpp"

namespace memrel {
namespace {

// What the parent checks (no cupy import: that would load CUDA in the parent).
constexpr const char* kProbe = R"(
import importlib.util as u
if u.find_spec('cupy') is None:
    print(f'cupy not importable by {sys.executable}: no module cupy on its sys.path')
)";

Availability cupy_availability() { return python_framework_availability(kProbe); }

BackendInfo row(const std::string& backend, const std::string& description,
                const std::string& release) {
  return {
      backend,
      "cupy",
      description + "; an allocation is cupy.cuda.memory.alloc(n), a free drops it",
      release,
      MemorySpace::kDevice,
      {},
      cupy_availability,
      [backend] { return make_python_allocator("memrel_cupy_backend", kCupyBackendPy, backend); }};
}

class CupyFamily : public BackendFamily {
 public:
  std::string name() const override { return "cupy"; }

  std::vector<BackendInfo> backends() const override {
    return {
        row("cupy-pool", "CuPy's default MemoryPool (cudaMalloc'd chunks, best-fit bins)",
            "MemoryPool.free_all_blocks()"),
        row("cupy-async-pool", "CuPy's MemoryAsyncPool (cudaMallocAsync, the device's pool)",
            "MemoryAsyncPool.free_all_blocks(), which trims the pool"),
        row("cupy-nopool", "CuPy without a pool: set_allocator(None), a cudaMalloc per block",
            "nothing to do: a freed block returns to the driver at once"),
    };
  }

  std::map<std::string, std::string> loaded_runtime_versions() const override {
    auto all = loaded_python_framework_versions();
    std::map<std::string, std::string> mine;
    if (auto found = all.find("cupy"); found != all.end()) mine.insert(*found);
    return mine;
  }
};

}  // namespace

const BackendFamily& cupy_family() {
  static const CupyFamily family;
  return family;
}

}  // namespace memrel
