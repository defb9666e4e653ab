// The process's address-space limit (RLIMIT_AS, `ulimit -v`): a host allocator's failure under one
// is the machine's, and a resume under another is another run. One reading for the cell, the
// journal and the Python parts' crash lines.
#pragma once

#include <cstdint>
#include <optional>

namespace memrel {

// The soft limit in bytes, or nullopt when there is none (or it cannot be read).
std::optional<std::uint64_t> address_space_limit_bytes();

// The same reading of any RLIMIT_* given in bytes (RLIMIT_FSIZE, RLIMIT_DATA): one reading for
// every limit memrel names.
std::optional<std::uint64_t> soft_limit_bytes(int resource);

}  // namespace memrel
