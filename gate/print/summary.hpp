// A one-screen Markdown summary of the gate for a CI step summary (GitHub's
// $GITHUB_STEP_SUMMARY, GitLab's job summary): the verdict, the counts, and the first
// regressions and missing figures; the full table is the `--markdown` file.
#pragma once

#include <cstddef>
#include <string>

#include "gate/verdict.hpp"

namespace memrel {

// At most `max_rows` rows of regressions and missing figures are listed (then "and N more").
std::string to_summary_markdown(const Report& report, std::size_t max_rows = 15);

}  // namespace memrel
