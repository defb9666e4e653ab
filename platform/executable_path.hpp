// Where the running executable is (/proc/self/exe), and its folder: where the build puts
// memrel's siblings (memrel_bench, the torch plugin, the pluggable examples), found from there
// instead of from PATH or the working directory. The one place memrel asks the kernel for it.
#pragma once

#include <string>

namespace memrel {

// The running executable's absolute path; empty if the kernel does not say (no /proc).
std::string executable_path();

// The folder of executable_path(); empty if unknown.
std::string executable_dir();

}  // namespace memrel
