// Sizes as people write them on a command line: "4096", "512KiB", "360MiB", "1.5GiB".
#pragma once

#include <cstdint>
#include <string>

namespace memrel {

// Binary units only (KiB, MiB, GiB, TiB, B): memory is allocated in powers of two, and "1GB"
// meaning 10^9 or 2^30 depending on the reader is exactly the ambiguity a byte-exact tool avoids.
// Throws std::invalid_argument naming `option` unless 0 < size <= max_bytes.
std::uint64_t parse_byte_size(const std::string& text, const std::string& option,
                              std::uint64_t max_bytes);

}  // namespace memrel
