// The attributes with which a file system refuses what every output does last: rename a file
// written beside the output over it (chattr's immutable and append-only, FS_IOC_GETFLAGS). Seen
// only at the rename, after the work, they made writers exit 4 "internal error", some leaving their
// temporary files in a folder that takes no removal (the thirty-sixth adversarial pass, c2-*).
#pragma once

#include <string>

namespace memrel {

// What stops a file being renamed over PATH, or into it when PATH is a folder, in words:
// "is immutable (chattr +i)", "is append-only (chattr +a)". "" when neither attribute is set, or
// the file system keeps no such attributes, or PATH cannot be opened to ask (then the write says).
std::string replace_barrier(const std::string& path);

}  // namespace memrel
