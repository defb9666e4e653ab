#include "cli/duplicate_names.hpp"

#include <sys/stat.h>

#include <stdexcept>

#include "harness/results/report_page_name.hpp"

namespace memrel::cli {
namespace {

bool one_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

// Refused before the first cell. A trace's name is its header's, so a trace can take a
// workload's name.
void refuse_duplicates(const std::vector<std::string>& names,
                       const std::vector<std::string>& sources, const std::string& what,
                       const std::string& how_to_rename) {
  auto source = [&](std::size_t i) { return i < sources.size() ? sources[i] : names[i]; };
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (names[i] != names[j]) continue;
      if (source(i) == source(j))
        throw std::invalid_argument(what + " " + source(i) + " is named twice");
      // One file under two spellings (`-w ./a.pickle -w a.pickle`) is one workload given twice,
      // not two of one name (the eighty-fourth adversarial pass, a tester's remark w3).
      if (one_file(source(i), source(j)))
        throw std::invalid_argument(what + " " + source(i) + " is named twice (as " + source(j) +
                                    " and " + source(i) + ")");
      throw std::invalid_argument(what + " name '" + names[i] + "' is both " + source(j) + " and " +
                                  source(i) +
                                  ": results would hold two cells of one "
                                  "name; rename one" +
                                  (how_to_rename.empty() ? "" : " (" + how_to_rename + ")"));
    }
  }
  // Two names the report would give one page ('a/b' and 'a_b-c14cddc0', crafted as the first's
  // page name): the report refuses such results, so the run does not make them.
  if (auto pair = names_sharing_a_page(names)) {
    const auto [j, i] = *pair;
    throw std::invalid_argument(what + " names '" + names[j] + "' (" + source(j) + ") and '" +
                                names[i] + "' (" + source(i) + ") would share one report page (" +
                                report_page_name(names[i]) + ", letters' case aside); rename one");
  }
}

}  // namespace memrel::cli
