// --host-capacity (run, advise): the memory a host backend's cell takes for its device's. More
// than the machine has is refused before any cell: `--host-capacity 1TiB` on a 23 GiB machine
// was taken, and fragmentation's cells (a tenth of the capacity each step) were killed by the
// kernel's out-of-memory killer and recorded as crashed, the allocator's fault, exit 3 (the
// seventeenth adversarial pass, c8-host-capacity-above-ram-oom-crash).
#pragma once

#include <cstdint>
#include <string>

namespace memrel::cli {

// The bytes --host-capacity `text` says; throws std::invalid_argument (exit 2) for a size that
// is no size, is above memrel's largest request, or is more than this machine's memory.
std::uint64_t host_capacity_bytes(const std::string& text);

}  // namespace memrel::cli
