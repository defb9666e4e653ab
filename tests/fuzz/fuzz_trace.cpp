// Traces (memrel.trace/1): any bytes either load or throw WorkloadError. The loader reads a
// path by the input rules, so each input is written to one memory file (memfd: a regular file
// that never touches a disk) and read back through /proc/self/fd.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/workload/trace_file.hpp"
#include "harness/workload/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("fuzz.memtrace", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 0) != 0) std::abort();
  if (size > 0 && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  try {
    memrel::load_trace_file("/proc/self/fd/" + std::to_string(fd));
  } catch (const memrel::WorkloadError&) {
  }
  return 0;
}
