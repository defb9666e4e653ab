// What the kernel sees of this process's memory, as opposed to what an allocator says.
#pragma once

#include <cstdint>

namespace memrel {

// Resident set size of this process from /proc/self/statm, exact to the page.
std::uint64_t host_rss_bytes();

}  // namespace memrel
