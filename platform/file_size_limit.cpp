#include "platform/file_size_limit.hpp"

#include <sys/resource.h>

#include "platform/address_space_limit.hpp"

namespace memrel {

std::optional<std::uint64_t> file_size_limit_bytes() { return soft_limit_bytes(RLIMIT_FSIZE); }

}  // namespace memrel
