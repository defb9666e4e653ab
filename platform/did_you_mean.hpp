// "unknown subcommand 'runn'; did you mean run?": the name a mistyped word was closest to.
#pragma once

#include <string>
#include <vector>

namespace memrel {

// The candidate nearest to `word` by edit distance (insertions, deletions, substitutions, and
// swaps of two neighbours count one each), if it is near enough to be a typo: at most one edit
// for words of up to four letters, two beyond. Empty when none is.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace memrel
