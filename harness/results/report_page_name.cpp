#include "harness/results/report_page_name.hpp"

#include <cctype>
#include <map>

#include "platform/sha256.hpp"

namespace memrel {
namespace {

bool kept(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

std::string report_page_name(const std::string& name) {
  // Byte by byte: a character outside ASCII is bytes none of which is kept, so a run of them
  // becomes one '_' as Python's [^A-Za-z0-9._-]+ makes a run of such characters one.
  std::string safe;
  bool in_run = false;
  for (char c : name) {
    if (kept(c))
      safe += c;
    else if (!in_run)
      safe += '_';
    in_run = !kept(c);
  }
  const auto first = safe.find_first_not_of('_');
  safe =
      first == std::string::npos ? "" : safe.substr(first, safe.find_last_not_of('_') - first + 1);
  if (safe.empty()) safe = "unnamed";
  // A long name is cut and keeps its hash: a 300-character workload name made file names past
  // the file system's 255 bytes (d-sanit13). kMaxReportPageNameChars is prepare.py's
  // MAX_SLUG_CHARS.
  if (safe == name && safe.size() <= kMaxReportPageNameChars) return safe;
  return safe.substr(0, kMaxReportPageNameChars) + "-" + sha256_hex(name).substr(0, 8);
}

std::optional<std::pair<std::size_t, std::size_t>> names_sharing_a_page(
    const std::vector<std::string>& names) {
  // Pages that differ only by case are one on a case-insensitive file system, or in a zip of
  // the report (the thirteenth adversarial pass, c6-report-case-only-*): the page name is ASCII.
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string page = report_page_name(names[i]);
    for (char& c : page) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [at, added] = seen.emplace(page, i);
    if (!added && names[at->second] != names[i]) return std::make_pair(at->second, i);
  }
  return std::nullopt;
}

}  // namespace memrel
