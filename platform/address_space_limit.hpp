// The process's address-space limit (RLIMIT_AS, `ulimit -v`): a host allocator's failure under one
// is the machine's, and a resume under another is another run. One reading for the cell, the
// journal and the Python parts' crash lines.
#pragma once

#include <cstdint>
#include <optional>

namespace memrel {

// The soft limit in bytes, or nullopt when there is none (or it cannot be read).
std::optional<std::uint64_t> address_space_limit_bytes();

}  // namespace memrel
