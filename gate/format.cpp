#include "gate/format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "platform/one_line_text.hpp"

namespace memrel::format {
namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}  // namespace

std::string printf_string(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string bytes(std::int64_t v) {
  std::string s = std::to_string(v);
  if (std::llabs(v) >= (1ll << 20))
    s += " (" + printf_string("%.1f MiB", static_cast<double>(v) / kMiB) + ")";
  return s;
}

std::string tolerance(double bytes) {
  if (bytes == 0) return "exact";
  if (bytes >= kMiB) return printf_string("%.1f MiB", bytes / kMiB);
  return printf_string("%.0f B", bytes);
}

std::string relative_change(double diff, double base) {
  if (base == 0) return "";
  // Past a million per cent the digits say nothing the exponent does not: a base of 1e-300 ns
  // made a 62-digit figure, cut off without its % (the sixty-second adversarial pass,
  // c4-compare-latency-change-from-tiny-baseline-garbled). The twin of
  // scripts/memrel_outputs/percent_text.py.
  const double percent = 100.0 * diff / std::fabs(base);
  return printf_string(std::fabs(percent) < 1e6 ? "%+.1f%%" : "%+.3g%%", percent);
}

std::string byte_change(std::int64_t diff, std::int64_t base) {
  if (diff == 0) return "0";
  std::string s = (diff > 0 ? "+" : "") + std::to_string(diff);
  std::vector<std::string> notes;
  if (std::llabs(diff) >= (1ll << 20))
    notes.push_back(printf_string("%+.1f MiB", static_cast<double>(diff) / kMiB));
  std::string pct = relative_change(static_cast<double>(diff), static_cast<double>(base));
  if (!pct.empty()) notes.push_back(pct);
  if (!notes.empty()) {
    s += " (";
    for (std::size_t i = 0; i < notes.size(); ++i) s += (i ? ", " : "") + notes[i];
    s += ")";
  }
  return s;
}

std::string nanoseconds(double ns) {
  if (ns < 1e4) return printf_string("%.0f ns", ns);
  if (ns < 1e7) return printf_string("%.1f µs", ns / 1e3);
  if (ns < 1e10) return printf_string("%.2f ms", ns / 1e6);
  return printf_string("%.2f s", ns / 1e9);
}

std::string p_value(double p) {
  if (p < 1e-4) return printf_string("p=%.1e", p);
  return printf_string("p=%.4f", p);
}

std::string ratio(const std::optional<double>& r) {
  return r ? printf_string("%.4f", *r) : "undefined";
}

const char* markup_entity(char ch) {
  switch (ch) {
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '&':
      return "&amp;";
    default:
      return nullptr;
  }
}

namespace {
std::string ascii_lower(std::string text) {
  for (char& ch : text)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return text;
}

bool ascii_word_character(char ch) {
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}
}  // namespace

std::string markdown_cell(const std::string& raw) {
  // Control characters, bytes that are not UTF-8 and direction controls first, as every error
  // line says them (platform/one_line_text.hpp): a cell's reason or a benchmark's name read from
  // a file held an escape sequence that went to the terminal and the Markdown raw (the eighth
  // adversarial pass, c9-ctrl-reason-compare, c9-ctrl-bench-name). A newline is `\n` text.
  const std::string s = memrel::one_line_text(raw);
  std::string out;
  for (std::size_t k = 0; k < s.size(); ++k) {
    const char ch = s[k];
    // Raw HTML from a name would render; a character reference shows as typed.
    if (const char* entity = markup_entity(ch)) {
      out += entity;
      continue;
    }
    switch (ch) {
      // The backslash first of all: `a\|b` escaped only at its '|' was an escaped backslash
      // and a raw cell boundary, which split the row (the tenth adversarial pass). Then
      // emphasis, strikethrough, links and images, code spans and the cell boundary.
      case '\\':
      case '`':
      case '*':
      case '~':
      case '[':
      case ']':
      case '|':
      case '$':  // GitHub's math: `$x^2$` was set as a formula (the twenty-seventh pass)
        out += '\\';
        out += ch;
        break;
      // GitHub links bare addresses (its autolink extension): the ':' of "://", the '.' of
      // "www." and every '@' are backslashed, which renders each as itself and breaks the link
      // (the fifty-second adversarial pass, c9-bare-url-autolinks-in-markdown).
      case '@':
        out += "\\@";
        break;
      case ':':
        if (s.compare(k + 1, 2, "//") == 0) out += '\\';
        out += ch;
        break;
      case '.': {
        const bool www = k >= 3 && ascii_lower(s.substr(k - 3, 3)) == "www" &&
                         (k < 4 || !ascii_word_character(s[k - 4]));
        if (www) out += '\\';
        out += ch;
        break;
      }
      case '_': {  // emphasis only where it is not between two letters or digits (CommonMark)
        const bool inside_word = k > 0 && k + 1 < s.size() && ascii_word_character(s[k - 1]) &&
                                 ascii_word_character(s[k + 1]);
        if (!inside_word) out += '\\';
        out += ch;
        break;
      }
      default:
        out += ch;
    }
  }
  return out;
}

std::string markdown_heading(const std::string& raw) {
  // Every '#' too: a title ending in " #" lost it as the heading's closing sequence, and "#" alone
  // made an empty heading (the fifty-ninth adversarial pass, c9-markdown-heading-closing-hash),
  // where the report escapes them (docs/inputs.md, "Markup").
  std::string out;
  for (const char ch : markdown_cell(raw)) {
    if (ch == '#') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace memrel::format
