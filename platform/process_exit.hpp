// Waiting for a process that is not our child to end: a cell waits for the cell before it in
// its slot (harness/execution/runner.cpp, "exit overlap") before it reads the device's memory,
// while that cell's exit (the driver tearing its CUDA context down) overlaps this one's start.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace memrel {

// Returns once process `pid` has ended (exited, even if not yet reaped by its parent), or at
// once if there is no such process; the nanoseconds it waited. Through a pidfd (Linux 5.3), so a
// pid reused after the wait began cannot keep it waiting (one reused before it began could: the
// caller passes a pid it knows is alive or unreaped); where pidfd_open is refused, by probing the
// pid every millisecond until it is gone (reaped).
std::uint64_t wait_until_process_ends(pid_t pid);

// Whether `pid` is a process a cell may wait for: one running this same program (its
// /proc/PID/exe is /proc/self/exe's file), or one already gone or ended (nothing to wait for).
// `memrel cell --after-pid 1`, typed by hand, waited for init for ever; the runner only ever
// names the slot's previous cell, a memrel process (exec'd or forked from a zygote).
bool runs_this_program_or_has_ended(pid_t pid);

}  // namespace memrel
