// The name of a backend's or workload's page in `memrel report` (workload-NAME.html), as the
// report derives it (scripts/memrel_report/prepare.py, slug): `run` refuses two names that would
// share one page before its first cell, rather than write results the report then refuses (the
// fifth adversarial pass, d21). tests/data/report_page_names.json holds names and their pages,
// checked against both definitions (report_page_name_test.cpp, test_report_page_names.py).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memrel {

// The longest page name kept whole; a longer one is cut to this many characters and gets the hash
// (prepare.py's MAX_SLUG_CHARS: the same number).
inline constexpr std::size_t kMaxReportPageNameChars = 80;

// `name` with each run of characters other than ASCII letters, digits, '.', '_' and '-' made one
// '_', then '_' stripped from both ends ("unnamed" if nothing is left); a name this changed gets
// '-' and the first 8 hex digits of the SHA-256 of its UTF-8 bytes, so that it never shares a page
// with the name it was changed into. A name longer than kMaxReportPageNameChars is cut to that
// length and gets the hash too.
std::string report_page_name(const std::string& name);

// The first two distinct names (in order) that share a page, or whose pages differ only by case
// (one page on a case-insensitive file system), or none.
std::optional<std::pair<std::size_t, std::size_t>> names_sharing_a_page(
    const std::vector<std::string>& names);

}  // namespace memrel
