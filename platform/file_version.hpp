// What tells that a file's content may have changed since it was looked at, without reading it:
// the file it is (device, inode), its size, and its modification and status-change times. A file
// written in place, truncated, replaced by a rename or touched back to its old time differs in one
// of them (the status-change time cannot be set by a user), unless it happened within the same
// tick of the kernel's coarse file clock (a few ms) as the look before. Used where a file read once
// at the start must be the one later readers see (a run's workloads, read again by every cell).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memrel {

struct FileVersion {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t modified_ns = 0, status_changed_ns = 0;
};

bool operator==(const FileVersion& a, const FileVersion& b);
inline bool operator!=(const FileVersion& a, const FileVersion& b) { return !(a == b); }

// The version of the file PATH names (a link followed, as a reader opening it would); empty when
// there is none to stat.
std::optional<FileVersion> file_version(const std::string& path);

}  // namespace memrel
