// What memrel's children leave behind, ended with memrel. A cell's allocator (or memrel_bench's,
// or a Python part's library) that forks a process which calls setsid() leaves memrel's process
// groups, so ending a child's group missed it: it outlived memrel, reparented to init (the
// eighteenth adversarial pass, c9-run-cell-daemon-child-outlives, c9-bench-daemon-child,
// c9-run-sigterm-cell-daemon-child). memrel makes itself the child subreaper
// (PR_SET_CHILD_SUBREAPER): an orphan of any of its descendants becomes its child, not init's, and
// whatever is still its child when the command ends is ended then. A SIGKILL of memrel itself runs
// no code: what it leaves then, the kernel's parent-death signals end (each direct child has one).
#pragma once

namespace memrel {

class AdoptedProcesses {
 public:
  // Makes this process the subreaper of its descendants.
  AdoptedProcesses();
  // Ends (SIGKILL) and reaps every process that is still this process's child, its own
  // children too (they are adopted in turn).
  ~AdoptedProcesses();
  AdoptedProcesses(const AdoptedProcesses&) = delete;
  AdoptedProcesses& operator=(const AdoptedProcesses&) = delete;
};

}  // namespace memrel
