// The option values memrel parses itself (not CLI11's): byte sizes ("360MiB"), the gate's
// --byte-tolerance ("2MiB,1%"), ab's --cpus ("0-3,8") and run's --trace-scale ("1/64"). Any text
// either parses within range or throws invalid_argument.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "gate/rules/tolerances.hpp"
#include "harness/workload/trace_plan.hpp"
#include "harness/workload/workload.hpp"
#include "platform/byte_size.hpp"
#include "platform/cpu_affinity.hpp"

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
  try {
    const std::vector<int> cpus = memrel::parse_cpu_list(text, "--cpus");
    if (cpus.empty() || !std::is_sorted(cpus.begin(), cpus.end()) ||
        std::adjacent_find(cpus.begin(), cpus.end()) != cpus.end() || cpus.front() < 0 ||
        cpus.back() >= CPU_SETSIZE)
      std::abort();
  } catch (const std::invalid_argument&) {
  }
  try {
    const std::uint64_t divisor = memrel::parse_trace_scale(text);
    if (divisor >= 1000000000000000ULL) std::abort();  // 0 is auto
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
