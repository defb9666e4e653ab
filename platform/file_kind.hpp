// What is at a path, in words, for the line that refuses it: "a symbolic link", "a FIFO", "a
// folder", "a file". One list for every writer's refusal (platform/atomic_file.hpp) and the
// history's SQLite journal (gate/history/history_db.cpp).
#pragma once

#include <sys/types.h>

namespace memrel {

// `mode` as lstat() gives it.
const char* file_kind_name(mode_t mode);

}  // namespace memrel
