// Whole-file writes that a reader never sees half done.
#pragma once

#include <string>

namespace memrel {

// Writes to PATH.tmp.PID then renames, so a reader never sees half a file and an interrupted
// write leaves the previous file intact. Throws std::runtime_error naming the file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace memrel
