// Backend files (memrel.backend/1): any bytes either parse or throw BackendFileError. Parsing
// never loads the library it names.
#include <cstddef>
#include <cstdint>
#include <string>

#include "allocators/pluggable/backend_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    memrel::parse_backend_text(std::string(reinterpret_cast<const char*>(data), size),
                               "/nonexistent/fuzz/backend.json");
  } catch (const memrel::BackendFileError&) {
  }
  return 0;
}
