#include "platform/decimal_text.hpp"

#include <charconv>
#include <cstdint>
#include <system_error>

namespace memrel {
namespace {

// A decimal as 0.DIGITS times 10^exponent, DIGITS without leading or trailing zeros ("" for 0).
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exponent = 0;
};

constexpr std::int64_t kExponentCap = std::int64_t{1} << 40;  // past any the digits could shift

Decimal decimal_of(const std::string& text) {
  Decimal d;
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  std::string digits;
  std::int64_t point = -1;  // digits before the point
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.')
      point = static_cast<std::int64_t>(digits.size());
    else
      digits += text[i];
  }
  if (point < 0) point = static_cast<std::int64_t>(digits.size());
  std::int64_t written_exponent = 0;
  if (i < text.size()) {
    ++i;  // the 'e'
    bool minus = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) minus = text[i++] == '-';
    for (; i < text.size(); ++i)
      if (written_exponent < kExponentCap)
        written_exponent = written_exponent * 10 + (text[i] - '0');
    if (minus) written_exponent = -written_exponent;
  }
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return Decimal{false, "", 0};  // zero, of either sign
  const std::size_t last = digits.find_last_not_of('0');
  d.digits = digits.substr(first, last - first + 1);
  d.exponent = point - static_cast<std::int64_t>(first) + written_exponent;
  return d;
}

int compare_magnitudes(const Decimal& a, const Decimal& b) {
  if (a.digits.empty() || b.digits.empty())
    return a.digits.empty() == b.digits.empty() ? 0 : a.digits.empty() ? -1 : 1;
  if (a.exponent != b.exponent) return a.exponent < b.exponent ? -1 : 1;
  // Trailing zeros are gone: of two digit strings one begins the other only if it is shorter,
  // and then it is the smaller number.
  const int order = a.digits.compare(b.digits);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

}  // namespace

bool is_decimal_text(const std::string& text) {
  std::size_t i = text.empty() || text[0] != '-' ? 0 : 1;
  std::size_t before = 0, after = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++before;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++after;
  }
  if (before + after == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    std::size_t exponent_digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == text.size();
}

int compare_decimal_text(const std::string& a, const std::string& b) {
  const Decimal x = decimal_of(a), y = decimal_of(b);
  const bool x_negative = x.negative && !x.digits.empty();
  const bool y_negative = y.negative && !y.digits.empty();
  if (x_negative != y_negative) return x_negative ? -1 : 1;
  const int magnitude = compare_magnitudes(x, y);
  return x_negative ? -magnitude : magnitude;
}

std::string shortest_decimal_text(double value) {
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return error == std::errc() ? std::string(buffer, end) : std::string("0");
}

bool decimal_text_within(const std::string& text, double lo, double hi, bool lo_open) {
  const int against_lo = compare_decimal_text(text, shortest_decimal_text(lo));
  return (lo_open ? against_lo > 0 : against_lo >= 0) &&
         compare_decimal_text(text, shortest_decimal_text(hi)) <= 0;
}

}  // namespace memrel
