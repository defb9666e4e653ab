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

// As parse_byte_size, and 0 in any spelling of it ("0", "00", "0B", "0KiB", "0.0MiB"), for a size
// that may be none (a tolerance, an allocator's threshold): "0" was taken and "0KiB" refused as
// "not a positive size" (the seventy-second adversarial pass, c4-zero-with-unit-refused).
std::uint64_t parse_byte_size_or_zero(const std::string& text, const std::string& option,
                                      std::uint64_t max_bytes);

}  // namespace memrel
