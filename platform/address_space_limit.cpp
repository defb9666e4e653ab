#include "platform/address_space_limit.hpp"

#include <sys/resource.h>

namespace memrel {

std::optional<std::uint64_t> soft_limit_bytes(int resource) {
  struct rlimit limit {};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

std::optional<std::uint64_t> address_space_limit_bytes() { return soft_limit_bytes(RLIMIT_AS); }

}  // namespace memrel
