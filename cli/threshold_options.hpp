// The ranges of the gate's thresholds, checked where the command line reads them
// (docs/inputs.md, "Numbers"). CLI11's Range and NonNegativeNumber let nan through (every
// comparison with nan is false) and inf too; either would switch a rule off without a word.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

#include "platform/decimal_text.hpp"

namespace memrel::cli {

// The largest --latency-min-change: a median 11 times the baseline's must still be able to fail.
// To stop gating latency, say so: --no-latency-gate.
constexpr double kMaxLatencyMinChange = 10.0;

// A finite number from lo to hi, both included.
inline CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double value = 0;
        bool parsed = CLI::detail::lexical_cast(text, value);
        // A value too small for a double reads as 0 (1e-400): a rule the user meant to keep on
        // would be off. Refused as out of range (the sixteenth adversarial pass).
        const std::size_t exponent = text.find_first_of("eE");
        const bool underflowed =
            parsed && value == 0 &&
            text.substr(0, exponent).find_first_of("123456789") != std::string::npos;
        // "-0" and "-0.0" are negative zero, >= 0 as a double: a sign the range does not allow,
        // taken (the seventeenth adversarial pass's successor, c4-compare-latmin).
        const bool negative = lo >= 0 && text.find('-') == 0;
        // Past a bound in digits a double cannot hold: 0.50000000000000000001 read as 0.5 and
        // taken (the seventy-eighth adversarial pass, c4-threshold-past-bound-rounds-in). The text
        // is compared with the bounds exactly; a misspelt one is refused after the parse
        // (misspelled_number).
        const bool beyond = is_decimal_text(text) && !decimal_text_within(text, lo, hi);
        if (parsed && !underflowed && !negative && !beyond && std::isfinite(value) && value >= lo &&
            value <= hi)
          return "";
        if (underflowed)  // said as the Python side says it (memrel_help.finite_number)
          return "'" + text + "' is too small for a number here (it reads as 0)";
        return "'" + text + "' is not a finite number from " + CLI::detail::to_string(lo) + " to " +
               CLI::detail::to_string(hi);
      },
      "FINITE in [" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]");
}

// The bounds of a CLI::Range compared with the text as written, for an option whose misspelt
// values CLI::Range and misspelled_number say better (--min-time): a decimal past a bound only
// in digits a double cannot hold (86400.00000000000000001) passed CLI::Range as the bound (the
// seventy-eighth adversarial pass, c4-threshold-past-bound-rounds-in).
inline CLI::Validator exact_bounds(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        if (!is_decimal_text(text) || decimal_text_within(text, lo, hi)) return "";
        return "'" + text + "' is not a number from " + CLI::detail::to_string(lo) + " to " +
               CLI::detail::to_string(hi);
      },
      "");
}

// --latency-min-change and --alpha, shared by compare and ab.
inline CLI::Validator latency_min_change_range() { return finite_range(0, kMaxLatencyMinChange); }
inline CLI::Validator alpha_range() { return finite_range(1e-9, 0.5); }

}  // namespace memrel::cli
