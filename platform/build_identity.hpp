// What this binary is: memrel's version and the commit it was built from, both fixed at
// configure time, so that an installed binary names its source without a checkout to ask.
#pragma once

#include <string>

namespace memrel {

std::string memrel_version();  // the project's version (CMakeLists.txt), e.g. "0.1.0"

// `git describe --always --dirty --abbrev=12` when memrel was configured, or MEMREL_COMMIT /
// $MEMREL_GIT_COMMIT given then; "unknown" without either.
std::string memrel_build_commit();

}  // namespace memrel
