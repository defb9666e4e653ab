// How the gate writes numbers into its rows: bytes exact with MiB beside them, changes signed,
// times in the unit a reader takes in at a glance. Shared by every rule so that one figure reads
// the same in every table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memrel::format {

std::string printf_string(const char* format, double value);

// "377487360 (360.0 MiB)": bytes exact, as every byte figure in memrel is; MiB for a reader.
std::string bytes(std::int64_t v);
// "exact", "2.0 MiB", "512 B".
std::string tolerance(double bytes);
// "+12.5%", or empty when the base is 0.
std::string relative_change(double diff, double base);
// "+4096 (+1.1%)", "-2097152 (-2.0 MiB, -0.5%)", "0".
std::string byte_change(std::int64_t diff, std::int64_t base);
// "850 ns", "1.4 µs", "12.30 ms", "1.05 s".
std::string nanoseconds(double ns);
// "p=0.0079", "p=1.2e-05".
std::string p_value(double p);
// "0.9871", or "undefined".
std::string ratio(const std::optional<double>& r);
// Text for Markdown, inline (a table cell, a heading, mid-sentence): text, never markup
// (docs/inputs.md, "Markup"). Control characters as one_line_text says them (a newline would end
// the row, an escape sequence reach the terminal); a backslash and '`' '*' '~' '[' ']' '|' '$'
// backslashed, '_' too unless it stands between two letters or digits; '<' '>' '&' as entities.
// The twin of scripts/memrel_outputs/markdown_text.py: both meet tests/data/markdown_texts.json.
std::string markdown_cell(const std::string& s);

// markdown_cell's text for a heading's line: every '#' escaped as well.
std::string markdown_heading(const std::string& s);

// The entity that stands for '<', '>' or '&' in HTML, XML and Markdown text; nullptr for any other
// character.
const char* markup_entity(char ch);

}  // namespace memrel::format
