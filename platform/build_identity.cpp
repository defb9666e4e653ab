#include "platform/build_identity.hpp"

// Set for this file alone by platform/CMakeLists.txt, so that a new commit recompiles one file.
#ifndef MEMREL_VERSION
#define MEMREL_VERSION "unknown"
#endif
#ifndef MEMREL_BUILD_COMMIT
#define MEMREL_BUILD_COMMIT "unknown"
#endif

namespace memrel {

std::string memrel_version() { return MEMREL_VERSION; }

std::string memrel_build_commit() { return MEMREL_BUILD_COMMIT; }

}  // namespace memrel
