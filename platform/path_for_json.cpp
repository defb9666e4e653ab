#include "platform/path_for_json.hpp"

#include <cstddef>

namespace memrel {
namespace {

// The length of the well-formed UTF-8 sequence at text[i] (Unicode's table 3-7: no overlong
// forms, no surrogates, nothing above U+10FFFF), or 0 when the byte there starts none. These are
// the sequences nlohmann::json and Python's decoder both accept.
std::size_t sequence_length(const std::string& text, std::size_t i) {
  auto at = [&](std::size_t k) -> unsigned {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0x100u;
  };
  auto in = [&](std::size_t k, unsigned lo, unsigned hi) { return at(k) >= lo && at(k) <= hi; };
  const unsigned b = at(0);
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return in(1, 0x80, 0xbf) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const unsigned lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
    return in(1, lo, hi) && in(2, 0x80, 0xbf) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const unsigned lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
    return in(1, lo, hi) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
  }
  return 0;
}

}  // namespace

std::string path_for_json(const std::string& path) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size();) {
    const std::size_t n = sequence_length(path, i);
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
