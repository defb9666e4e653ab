// The RMM backends' factories in a build without RMM: they say so at run time.
#include "allocators/rmm/rmm_backends.hpp"

namespace memrel {
namespace {
[[noreturn]] void no_rmm() {
  throw BackendUnavailable(
      "memrel was built without RMM (librmm-cu13 not found at configure time: "
      "scripts/install-rmm)");
}
}  // namespace

std::unique_ptr<Allocator> make_rmm_pool(std::uint64_t, std::optional<std::uint64_t>) { no_rmm(); }
std::unique_ptr<Allocator> make_rmm_arena() { no_rmm(); }
std::unique_ptr<Allocator> make_rmm_binning() { no_rmm(); }
std::unique_ptr<Allocator> make_rmm_async() { no_rmm(); }

}  // namespace memrel
