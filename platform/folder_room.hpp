// Whether a folder takes a file: made and 64 KiB written to it (then removed), so that a full file
// system or a file size limit is said as such before a tool that does not check its writes
// (Google Benchmark's --benchmark_out) leaves an empty or cut-off file that reads as a result.
#pragma once

#include <string>

namespace memrel {

// "" when a file can be made in `folder` and 64 KiB written to it; else one phrase beginning with
// `label`: "-o bo: full (No space left on device)", "-o bo: cannot create a file there (...)".
std::string folder_room_problem(const std::string& folder, const std::string& label);

}  // namespace memrel
