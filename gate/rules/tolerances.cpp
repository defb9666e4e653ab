#include "gate/rules/tolerances.hpp"

#include <stdexcept>

#include "harness/workload/workload.hpp"
#include "platform/byte_size.hpp"
#include "platform/decimal_text.hpp"

namespace memrel {

ByteTolerance parse_byte_tolerance(const std::string& text) {
  const std::string option = "--byte-tolerance";
  ByteTolerance t;
  bool have_size = false, have_percent = false;
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    std::size_t comma = text.find(',', start);
    parts.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& part : parts) {
    bool percent = !part.empty() && part.back() == '%';
    if (part.empty() || (percent ? have_percent : have_size)) {
      throw std::invalid_argument(
          option + ": '" + text +
          "' is not one size and/or one percentage (e.g. 0, 2MiB, 1%, 2MiB,1%)");
    }
    (percent ? have_percent : have_size) = true;
    if (percent) {
      std::string number = part.substr(0, part.size() - 1);
      std::size_t used = 0;
      double pct = -1;
      try {
        pct = std::stod(number, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      // The documented range is 0% to 99%: 99.5% (rounding to 99 nowhere) was taken before.
      // Plain decimal digits: stod also reads "0x1" (hex), "inf", " 5" and "+5" (the
      // eighteenth adversarial pass, c4-compare-bytetol: "0x1%" was taken as 1 %).
      // A leading point is a spelling of a fraction, as `.5GiB` is of a size and `.1` of
      // --latency-min-change: `.5%` was refused as "not a percentage from 0% to 99%" (the
      // fifty-sixth adversarial pass, c4-byte-tolerance-leading-point-percent).
      const std::size_t first_digit = !number.empty() && number.front() == '.' ? 1 : 0;
      const bool plain = number.size() > first_digit && number[first_digit] >= '0' &&
                         number[first_digit] <= '9' &&
                         number.find_first_not_of("0123456789.") == std::string::npos;
      // Compared with 99 as written: 99.0000000000000000001% was 99 % as a double, taken (the
      // seventy-eighth adversarial pass, c4-threshold-past-bound-rounds-in).
      if (!plain || used != number.size() || !(pct >= 0) || pct > 99 ||
          compare_decimal_text(number, "99") > 0) {
        throw std::invalid_argument(option + ": '" + part + "' is not a percentage from 0% to 99%");
      }
      t.relative = pct / 100.0;
    } else {
      t.absolute = parse_byte_size_or_zero(part, option, kMaxRequestBytes);
    }
  }
  return t;
}

}  // namespace memrel
