// The option values memrel parses itself (not CLI11's): byte sizes ("360MiB") and the gate's
// --byte-tolerance ("2MiB,1%"). Any text either parses within range or throws invalid_argument.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "gate/rules/tolerances.hpp"
#include "harness/workload/workload.hpp"
#include "platform/byte_size.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::uint64_t bytes = memrel::parse_byte_size(text, "--size", memrel::kMaxRequestBytes);
    if (bytes == 0 || bytes > memrel::kMaxRequestBytes) std::abort();
  } catch (const std::invalid_argument&) {
  }
  try {
    memrel::ByteTolerance t = memrel::parse_byte_tolerance(text);
    if (!(t.relative >= 0 && t.relative < 1) || t.absolute > memrel::kMaxRequestBytes) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
