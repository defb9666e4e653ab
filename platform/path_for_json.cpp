#include "platform/path_for_json.hpp"

#include <cstddef>

#include "platform/utf8_sequence.hpp"

namespace memrel {

std::string path_for_json(const std::string& path) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size();) {
    const std::size_t n = utf8_sequence_length(path, i);
    if (n > 0) {
      out.append(path, i, n);
      i += n;
    } else {
      const auto u = static_cast<unsigned char>(path[i++]);
      out += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    }
  }
  return out;
}

}  // namespace memrel
