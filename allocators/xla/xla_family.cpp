// XLA's GPU allocators as JAX users choose them (XLA_PYTHON_CLIENT_*), each run in a cell whose
// environment carries its settings, through the embedded-Python plugin
// (allocators/embedded_python/); the framework's side is xla_backend.py.
#include "allocators/backend_family.hpp"
#include "allocators/embedded_python/python_plugin_loader.hpp"
#include "xla_backend_py.hpp"

namespace memrel {
namespace {

// What the parent checks (no jax import: that could initialise CUDA in the parent).
constexpr const char* kProbe = R"(
import importlib.util as u
for m in ('jax', 'jaxlib'):
    if u.find_spec(m) is None:
        print(f'{m} not importable by {sys.executable}: no module {m} on its sys.path')
        sys.exit(0)
try:
    import jax_plugins
    cuda = [p for p in ('xla_cuda13', 'xla_cuda12') if u.find_spec('jax_plugins.' + p)]
except ImportError:
    cuda = []
if not cuda:
    print(f'jax has no CUDA plugin importable by {sys.executable} (jax-cuda13-plugin)')
)";

// What every allocation includes, said once in each row.
constexpr const char* kAllocation =
    "; an allocation is a compiled zeros((n,), uint8), waited for (a fill kernel; an XLA compile "
    "per new size)";

struct XlaVariant {
  const char* name;
  const char* description;
  const char* release;
  const char* preallocate;  // XLA_PYTHON_CLIENT_PREALLOCATE
  const char* allocator;    // XLA_PYTHON_CLIENT_ALLOCATOR
};

// The memory fraction is JAX's default (0.75) for all four: it is BFC's pool size when
// preallocating, its limit otherwise, and the cuda_async pool's limit.
constexpr const char* kMemFraction = "0.75";

constexpr XlaVariant kXlaVariants[] = {
    {"xla-bfc", "XLA's BFC allocator, preallocating 75% of the device at start (JAX's default)",
     "nothing: XLA offers no call that returns BFC's pool while the client lives", "true",
     "default"},
    {"xla-bfc-nopre", "XLA's BFC allocator without preallocation (grows, limit 75%)",
     "nothing: XLA offers no call that returns BFC's pool while the client lives", "false",
     "default"},
    {"xla-platform", "XLA's platform allocator (cudaMalloc/cudaFree per buffer, no cache)",
     "nothing to do: a deleted array's memory returns to the driver at once", "false", "platform"},
    {"xla-cuda-async",
     "XLA's cuda_async allocator (cudaMallocAsync on a stream-ordered pool), no preallocation",
     "nothing: XLA offers no call that trims its pool while the client lives", "false",
     "cuda_async"},
};

Availability xla_availability() { return python_framework_availability(kProbe); }

class XlaFamily : public BackendFamily {
 public:
  std::string name() const override { return "xla"; }

  std::vector<BackendInfo> backends() const override {
    std::vector<BackendInfo> rows;
    for (const XlaVariant& v : kXlaVariants) {
      std::map<std::string, std::string> env = {
          {"XLA_PYTHON_CLIENT_PREALLOCATE", v.preallocate},
          {"XLA_PYTHON_CLIENT_MEM_FRACTION", kMemFraction},
          {"XLA_PYTHON_CLIENT_ALLOCATOR", v.allocator},
          // Fail rather than fall back to the CPU when the GPU plugin does not load.
          {"JAX_PLATFORMS", "cuda"},
      };
      std::string backend = v.name;
      rows.push_back({backend, name(), std::string(v.description) + kAllocation, v.release,
                      MemorySpace::kDevice, env, xla_availability, [backend] {
                        return make_python_allocator("memrel_xla_backend", kXlaBackendPy, backend);
                      }});
    }
    return rows;
  }

  std::map<std::string, std::string> loaded_runtime_versions() const override {
    auto all = loaded_python_framework_versions();
    std::map<std::string, std::string> mine;
    for (const auto& [k, v] : all)
      if (k.rfind("jax", 0) == 0) mine[k] = v;
    return mine;
  }
};

}  // namespace

const BackendFamily& xla_family() {
  static const XlaFamily family;
  return family;
}

}  // namespace memrel
