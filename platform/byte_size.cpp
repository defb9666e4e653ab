#include "platform/byte_size.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memrel {

namespace {

// The number and the unit's bytes of "512KiB": ("512", 1024); of "4096": ("4096", 1).
std::pair<std::string, std::uint64_t> number_and_scale(const std::string& text) {
  static const std::vector<std::pair<std::string, std::uint64_t>> units = {
      {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}, {"B", 1}};
  for (const auto& [suffix, factor] : units)
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
      return {text.substr(0, text.size() - suffix.size()), factor};
  return {text, 1};
}

}  // namespace

std::uint64_t parse_byte_size_or_zero(const std::string& text, const std::string& option,
                                      std::uint64_t max_bytes) {
  const std::string number = number_and_scale(text).first;
  const std::size_t point = number.find('.');
  const bool zero =
      number.find_first_not_of("0.") == std::string::npos &&
      number.find('0') != std::string::npos &&
      (point == std::string::npos || number.find('.', point + 1) == std::string::npos);
  return zero ? 0 : parse_byte_size(text, option, max_bytes);
}

std::uint64_t parse_byte_size(const std::string& text, const std::string& option,
                              std::uint64_t max_bytes) {
  const auto [number, scale] = number_and_scale(text);
  std::size_t used = 0;
  double value = 0;
  // Decimal digits only, with at most one point: std::stod alone also takes hexadecimal
  // ("0x10" was 16 bytes), exponents, signs, "inf" and leading blanks.
  const std::size_t point = number.find('.');
  const bool decimal =
      !number.empty() && number.find_first_not_of("0123456789.") == std::string::npos &&
      (point == std::string::npos || number.find('.', point + 1) == std::string::npos);
  try {
    if (decimal) value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // Less than half a byte (".1", "0.4B") rounds to 0, which is not a positive size (found by
  // tests/fuzz/fuzz_compare_options: ".1" was 0 bytes).
  if (used != number.size() || !(value * static_cast<double>(scale) >= 0.5)) {
    throw std::invalid_argument(option + ": '" + text +
                                "' is not a positive size (e.g. 4096, 512MiB, 1GiB)");
  }
  // Too large is said as such: "not a positive size" of 8192TiB was untrue (the fifty-second
  // adversarial pass, c4-host-capacity-too-large-said-not-positive).
  if (value * static_cast<double>(scale) > static_cast<double>(max_bytes))
    throw std::invalid_argument(option + ": '" + text + "' is more than the " +
                                std::to_string(max_bytes) + " bytes this size may be");
  // A size is whole bytes: "1.5" or "0.1KiB" (102.4) were rounded without a word (the twelfth
  // adversarial pass, c4-setting-fractional-bytes). A binary unit times a decimal that makes
  // whole bytes (1.5KiB, 0.25GiB) is exact in a double, so the test is exact too.
  const double bytes = value * static_cast<double>(scale);
  if (std::floor(bytes) != bytes)
    throw std::invalid_argument(option + ": '" + text + "' is not a whole number of bytes (" +
                                number + " times " + std::to_string(scale) + ")");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace memrel
