// Whether a process is stopped (SIGSTOP, SIGTSTP, SIGTTIN, a debugger's stop), as /proc says: a
// child that ran out of its time while stopped did not run out of it by its own work. A cell or a
// memrel_bench stopped from outside was recorded as the allocator's `timeout`, exit 3 (the
// thirty-fourth adversarial pass, c8-*-sigstop-recorded-as-timeout).
#pragma once

#include <sys/types.h>

namespace memrel {

// True when /proc/PID/stat says state T (stopped) or t (stopped by a tracer); false otherwise,
// also when the process is gone or /proc cannot be read.
bool process_is_stopped(pid_t pid);

// " was stopped from outside (SIGSTOP or a debugger)": the words every such refusal says it with
// (a cell, the library's check, a memrel_bench, memrel's zygote), after what was stopped.
inline constexpr const char* kStoppedFromOutside =
    " was stopped from outside (SIGSTOP or a debugger)";

}  // namespace memrel
