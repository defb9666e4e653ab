// The process's file size limit (RLIMIT_FSIZE, `ulimit -f`): a write that fails under one may be
// the limit's doing even where the library that wrote (SQLite) says only "disk I/O error".
#pragma once

#include <cstdint>
#include <optional>

namespace memrel {

// The soft limit in bytes, or nullopt when there is none (or it cannot be read).
std::optional<std::uint64_t> file_size_limit_bytes();

}  // namespace memrel
