// Mount points at or below a path, from the mount table: an output that is a mount point cannot be
// renamed over (EBUSY, found only after all the work), and a folder output replaced whole would
// be removed through one (a bind mount inside an earlier report folder lost the mounted folder's
// files: the tenth adversarial pass). A bind mount of a folder of the same file system has that
// file system's st_dev, so only the mount table tells it.
#pragma once

#include <string>

namespace memrel {

// The first mount point of this process (/proc/self/mountinfo) that is PATH's real path or lies
// below it, or "" when there is none or the table cannot be read.
std::string mount_point_at_or_below(const std::string& path);

}  // namespace memrel
