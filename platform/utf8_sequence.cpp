#include "platform/utf8_sequence.hpp"

namespace memrel {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
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

unsigned utf8_code_point(std::string_view text, std::size_t i, std::size_t length) {
  static const unsigned kLeadMask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  unsigned code = static_cast<unsigned char>(text[i]) & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k)
    code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
  return code;
}

}  // namespace memrel
