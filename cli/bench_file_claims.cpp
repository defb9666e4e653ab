#include "cli/bench_file_claims.hpp"

#include <cctype>
#include <stdexcept>

#include "harness/execution/bench_launcher.hpp"

namespace memrel::cli {

void BenchFileClaims::claim(const std::string& given, const std::string& name) {
  const std::string file = bench_file_name(name);
  std::string folded = file;  // only ASCII: bench_file_name keeps letters, digits, - _ .
  for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto [it, fresh] = by_folded_file_.emplace(folded, Claim{given, file});
  if (fresh) return;
  if (it->second.file == file)
    throw std::invalid_argument("-b " + given + ": its file " + file + " is already given (as " +
                                it->second.given +
                                "): the same backend, or names alike once made a file name");
  throw std::invalid_argument("-b " + given + ": its file " + file + " differs from " +
                              it->second.file + " (of " + it->second.given +
                              ") only by case; they collide on a case-insensitive file system");
}

}  // namespace memrel::cli
