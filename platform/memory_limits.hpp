// The memory limits a host allocator can run into in this process: the address space (RLIMIT_AS,
// `ulimit -v`) and the data segment (RLIMIT_DATA, `ulimit -d`, which since Linux 4.7 bounds every
// private writable mapping, malloc's too). A request that failed within reach of one failed for
// the machine's limit, not for what the allocator does; one that failed far below it (an
// allocator that refuses by design, under a generous limit) is the allocator's own outcome.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memrel {

// RLIMIT_DATA's soft limit in bytes, or nullopt when there is none.
std::optional<std::uint64_t> data_limit_bytes();

// The limit a request of `request_bytes` that just failed in this process came within reach of
// ("an address-space limit of 95 MiB (ulimit -v)"), or "" when it came within reach of none:
// what the process maps (VmSize, VmData) plus the request is within kLimitReach of the limit.
std::string memory_limit_reached(std::uint64_t request_bytes);

// A limit's size as `ulimit` sets it (in KiB): "512 MiB" when whole MiB, else "1000 KiB". A
// data-segment limit of 1000 KiB was said as "0 MiB" (the seventy-third adversarial pass,
// c8-data-limit-0-mib).
std::string limit_size_text(std::uint64_t bytes);

// How close counts: the allocator's own headers, alignment and arenas beside the request.
constexpr std::uint64_t kLimitReach = std::uint64_t{64} << 20;

}  // namespace memrel
