// Output paths whose spelling the system and a lexical reading take for two different places:
// `rep/missing/..` (no such folder: the system finds nothing, a lexical reading finds ./rep),
// `link/../x` (the system goes up from the link's target, a lexical reading from the link's
// folder), `link/` (a trailing slash makes the system follow the link that the rule against
// links looks at). A checker that reads one way and a writer that writes the other replaced a
// user's folder without a marker, and a link the rule refuses (the twelfth adversarial pass,
// c1-report-out-missing-dotdot-*, c2-*-symlink-trailing-slash). Refused at once, so that every
// later step reads the path one way. The twin in Python: scripts/memrel_outputs/path_spelling.py.
#pragma once

#include <string>

namespace memrel {

// Why PATH is refused as an output's spelling, or "" when it is not: a ".." that goes up out of
// a folder that does not exist or is reached through a symbolic link (the system's parent and the
// lexical one differ), or a trailing "/" or "/." after a symbolic link.
std::string path_spelling_problem(const std::string& path);

}  // namespace memrel
