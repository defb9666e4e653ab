#include "platform/file_size_limit.hpp"

#include <sys/resource.h>

namespace memrel {

std::optional<std::uint64_t> file_size_limit_bytes() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

}  // namespace memrel
