// A path through the opening process's own descriptors (/dev/stdin, /dev/fd/N, /proc/self/fd/N)
// names another file in every process that opens it: read once by memrel, such a workload was
// reopened by each cell as the cell's own standard input, and recorded as the allocator crashing
// (the thirty-fourth adversarial pass, c10-run-w-dev-stdin-cell-crashed).
#pragma once

#include <string>

namespace memrel {

// PATH's file by its real path when PATH goes through this process's own descriptors and the
// descriptor is a file with a path; PATH itself otherwise (a pipe or a socket has no path: the
// input rules refuse it as what it is).
std::string file_behind_own_descriptor(const std::string& path);

// Whether PATH goes through the opening process's own descriptors (/dev/stdin, /dev/fd/N,
// /proc/self/fd/N, /proc/PID/fd/N of this process).
bool through_own_descriptor(const std::string& path);

}  // namespace memrel
