#include "allocators/allocator_environment.hpp"

#include <cstdlib>
#include <string>

namespace memrel {

std::map<std::string, std::string> allocator_environment() {
  std::map<std::string, std::string> env;
  // glibc's malloc reads its tunables and the MALLOC_*_ variables at start-up: on host-malloc
  // they moved release effectiveness from 0.03 to 0.95, and a --resume under others mixed two
  // settings in one results file (the eleventh adversarial pass, c5-resume-changed-env-*).
  // LD_PRELOAD puts another malloc in its place.
  for (const char* name :
       {"CUDA_MODULE_LOADING", "PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF",
        "CUDA_VISIBLE_DEVICES", "MALLOC_ARENA_MAX", "MALLOC_ARENA_TEST", "MALLOC_MMAP_MAX_",
        "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_PERTURB_",
        "MALLOC_CHECK_", "GLIBC_TUNABLES", "LD_PRELOAD",
        // The example allocators' planted slowdown (allocators/pluggable/examples): a --resume
        // under another one mixed two speeds in one file (the twenty-fifth adversarial pass,
        // c5-resume-other-example-slowdown).
        "MEMREL_EXAMPLE_SLOWDOWN_NS"}) {
    const char* v = std::getenv(name);
    // Set and empty is unset to every reader here but CUDA_VISIBLE_DEVICES (empty: no device):
    // `LD_PRELOAD= memrel run --resume` was refused as another run's journal (the eighteenth
    // adversarial pass, c5-resume-ld-preload).
    if (v != nullptr && (*v != '\0' || std::string(name) == "CUDA_VISIBLE_DEVICES")) env[name] = v;
  }
  return env;
}

}  // namespace memrel
