// A planted slowdown for the example allocators, to measure what `memrel ab` can detect
// (scripts/detectable-slowdown, docs/ab.md "What it detects"): MEMREL_EXAMPLE_SLOWDOWN_NS=N
// makes every allocate and every free of the example spin for about N nanoseconds before its
// work, so that one build run with two settings is a reference and a candidate slower by a known
// amount. Read once, when the library loads; absent, empty or 0: no slowdown; at most 1 ms. Not
// part of what an allocator brings to memrel; it is here only because these examples are memrel's
// own.
//
// The spin counts loop iterations calibrated when the library loads, not the clock: reading
// steady_clock costs tens of nanoseconds (over 100 ns a pair on the 2-core VM), so a clock-timed
// wait cannot plant less than that. A sleep cannot either: it lasts tens of microseconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace memrel_example {

// Not inlined, so that the calibration (a constant count) and the use (a count read at run time)
// run the same machine code; the asm keeps every iteration.
__attribute__((noinline)) inline void spin_iterations(std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) asm volatile("" : "+r"(i));
}

// The most a planted slowdown may be: 1 ms on every allocate and free already makes a cell of a
// thousand steps take seconds; more only spins it to its timeout.
inline constexpr long long kMostPlantedNs = 1000000;

// A setting's value as it can be shown on one line, escaped where it is not printable ASCII
// (\n, \x01, \u0661 for UTF-8, \xd9 for a byte that is not): '?' in place of the user's text
// hid what was wrong with it (the fifty-first adversarial pass,
// c4-slowdown-env-nonascii-shown-as-qmarks). The first 40 characters, then "...".
inline std::string escaped_setting(const char* v) {
  static const char* const kHex = "0123456789abcdef";
  std::string shown;
  int characters = 0;
  for (const auto* c = reinterpret_cast<const unsigned char*>(v); *c != 0; ++characters) {
    if (characters == 40) return shown + "...";
    if (*c >= 0x20 && *c < 0x7f) {
      if (*c == '\\') shown += '\\';  // a backslash of the value's own is told from an escape
      shown += static_cast<char>(*c++);
      continue;
    }
    if (*c == '\n' || *c == '\t') {
      shown += *c++ == '\n' ? "\\n" : "\\t";
      continue;
    }
    // A UTF-8 sequence of 2 to 4 bytes, as its code point; any other byte as itself, in hex.
    const int length = (*c & 0xe0) == 0xc0   ? 2
                       : (*c & 0xf0) == 0xe0 ? 3
                       : (*c & 0xf8) == 0xf0 ? 4
                                             : 0;
    std::uint32_t code = length == 2 ? (*c & 0x1f) : length == 3 ? (*c & 0x0f) : (*c & 0x07);
    int taken = 1;
    for (; length != 0 && taken < length && (c[taken] & 0xc0) == 0x80; ++taken)
      code = (code << 6) | (c[taken] & 0x3f);
    const std::uint32_t least = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
    if (length == 0 || taken < length || code < least || code > 0x10ffff ||
        (code >= 0xd800 && code <= 0xdfff)) {
      shown += std::string("\\x") + kHex[*c >> 4] + kHex[*c & 0xf];
      ++c;
      continue;
    }
    std::string digits;
    for (int shift = code > 0xffff ? 28 : 12; shift >= 0; shift -= 4)
      digits += kHex[(code >> shift) & 0xf];
    shown += (code > 0xffff ? "\\U" : "\\u") + digits;
    c += length;
  }
  return shown;
}

// The whole number in the variable NAME: absent or empty, 0; else decimal digits alone (no leading
// zero), at most `most`. Anything else ends the process as the library loads, as bad input (exit 2,
// one line naming the variable, its unit and `what` it is), which memrel's check of a backend
// file's library says before any cell: strtoll read "1e3" as 1, "0x10" and "abc" as 0, and a huge
// value spun every cell to its timeout, recorded as the allocator's failure (the twenty-fourth
// adversarial pass, c4-example-slowdown-env-*; the twenty-seventh, c4-test-delay-env-unchecked).
inline long long whole_number_setting(const char* name, long long most, const char* unit,
                                      const char* what) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return 0;
  long long n = 0;
  // A leading zero is refused, as every whole-number option refuses it (the fifty-eighth pass).
  bool fits = !(v[0] == '0' && v[1] != '\0');
  for (const char* c = v; fits && *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') {
      fits = false;
      break;
    }
    n = std::min(n * 10 + (*c - '0'), most + 1);
  }
  if (fits && n <= most) return n;
  const std::string shown = escaped_setting(v);
  std::fprintf(stderr, "memrel: %s: '%s' is not whole %s from 0 to %lld (%s)\n", name,
               shown.c_str(), unit, most, what);
  std::_Exit(2);
}

// MEMREL_EXAMPLE_SLOWDOWN_NS as nanoseconds, at most kMostPlantedNs.
inline long long planted_ns() {
  return whole_number_setting("MEMREL_EXAMPLE_SLOWDOWN_NS", kMostPlantedNs, "nanoseconds",
                              "the example allocators' planted slowdown");
}

// Checked as the library loads, not at its first allocation (inside a cell's work).
inline const long long kPlantedNs = planted_ns();

// Iterations for the planted nanoseconds: the median of five timed runs of 100,000 iterations,
// scaled. The median, not the fastest: on a machine whose cores are shared (hyperthreads, a
// VM), the fastest run was a quiet moment and the spin in use runs slower than that.
inline std::uint64_t planted_iterations() {
  static const std::uint64_t iterations = [] {
    const long long ns = kPlantedNs;
    if (ns <= 0) return std::uint64_t{0};
    constexpr std::uint64_t kCalibration = 100000;
    double took_ns[5];
    for (int run = 0; run < 5; ++run) {
      const auto start = std::chrono::steady_clock::now();
      spin_iterations(kCalibration);
      const std::chrono::duration<double, std::nano> took =
          std::chrono::steady_clock::now() - start;
      took_ns[run] = took.count();
    }
    std::sort(took_ns, took_ns + 5);
    const double median_ns = took_ns[2];
    return static_cast<std::uint64_t>(
        std::llround(static_cast<double>(ns) * kCalibration / std::max(median_ns, 1.0)));
  }();
  return iterations;
}

inline void spin_planted_slowdown() { spin_iterations(planted_iterations()); }

}  // namespace memrel_example
