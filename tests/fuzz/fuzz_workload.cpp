// Workload files (memrel.workload/1): any bytes either parse or throw WorkloadError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/workload/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    memrel::parse_workload_text(std::string(reinterpret_cast<const char*>(data), size),
                                "fuzz.json");
  } catch (const memrel::WorkloadError&) {
  }
  return 0;
}
