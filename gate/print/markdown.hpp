// The gate's report as Markdown: a header saying which rules applied, a table per file, and a
// summary line ending in PASS or FAIL. What `memrel compare` prints and --markdown writes.
#pragma once

#include <string>

#include "gate/compare_options.hpp"
#include "gate/verdict.hpp"

namespace memrel {

std::string to_markdown(const Report& report, const CompareOptions& options);

}  // namespace memrel
