// Child processes that never outlive their parent: fork + exec in a process group of their own,
// with the kernel's parent-death signal set before exec.
//
// Why a group of its own: a terminal's Ctrl-C goes to the foreground group, and the parent must
// decide what happens to a child (end it and all it started, record it), not the terminal. Why
// the parent-death signal: a parent killed with SIGKILL runs no code, so only the kernel can end
// its children then. It is SIGKILL unless the spec says otherwise: a signal a child may handle
// does not end it for sure (a Python child handles SIGTERM only between bytecodes, so one busy in
// C code, an unpickler hashing a shared tuple, outlived a SIGKILLed memrel for good: the fourth
// adversarial pass, s11). Only a child that answers SIGTERM at once, in C, by SIGKILLing its own
// group (`memrel cell`, the zygote: end_own_group_on_sigterm) asks for SIGTERM, so that what it
// started ends with it.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "platform/machine_state_error.hpp"

namespace memrel {

struct ChildSpec {
  std::vector<std::string> args;                   // args[0] is the executable's path
  std::map<std::string, std::string> environment;  // added to (or replacing in) ours
  // Variables of ours the child does not get: every one whose name starts with one of these.
  std::vector<std::string> removed_environment_prefixes;
  int stdout_fd = -1;  // -1: /dev/null
  int stderr_fd = -1;  // -1: /dev/null
  // Handed to the child as file descriptor 3 (e.g. where it writes its result); -1: none.
  int fd3 = -1;
  // args[0] looked up in PATH (a command such as python3) rather than taken as a path; only
  // PATH's absolute entries: an empty or relative entry (the working folder) is skipped. Every
  // child's own PATH is ours without those entries, so that what it looks up is found the same way.
  bool search_path = false;
  // False keeps the child in our process group, so that a terminal's Ctrl-C reaches it as it
  // reaches us (a helper program the user waits on); the parent-death signal is set either way.
  bool own_process_group = true;
  // The signal the kernel sends the child when we die (see above); set between fork and exec,
  // then getppid() checked in case we died in between.
  int parent_death_signal = SIGKILL;
  // The child's soft RLIMIT_AS (bytes), set between fork and exec; 0 leaves ours
  // (platform/address_space_reserve.hpp says why a Python part starts below it).
  std::uint64_t address_space_soft_limit = 0;
};

// How long a child that was asked to stop (memrel passed on a SIGINT, SIGTERM or SIGHUP) has to
// clean up and end before memrel SIGKILLs its group: a Python part busy in C code never sees the
// request (the fourth adversarial pass, s12: memrel waited for it for ever).
inline constexpr int kStopGraceSeconds = 5;

// The child could not become the program: its exec failed (the program was moved or removed
// while memrel ran, is not executable, or is not on PATH). The machine's state, never the
// child's own failure: a memrel upgraded in place mid-run had its next cells recorded as the
// allocator's crash, "exited with code 127" (the twelfth adversarial pass,
// c8-binary-removed-mid-run). "cannot start PROGRAM: REASON".
class ChildStartError : public MachineStateError {
 public:
  using MachineStateError::MachineStateError;
};

// Starts the child and returns its pid, which is also its process group id (own_process_group).
// Throws std::runtime_error when fork fails, ChildStartError (the child reaped) when its exec
// does: the child tells it through a close-on-exec pipe, which an exec that succeeds closes
// unwritten.
pid_t start_child(const ChildSpec& spec);

// The file start_child runs for the program NAME: NAME itself where it holds a '/', else the first
// executable regular file of that name in PATH's absolute entries outside the working folder. ""
// when a bare name is in none of them.
std::string program_as_run(const std::string& name);

// The folders of LD_LIBRARY_PATH that a child's dynamic linker searches: its absolute entries
// outside the working folder, the only ones a child gets (an empty or relative entry is the
// working folder to the linker).
std::vector<std::string> child_library_folders();

// The first entry of a search path (PATH, LD_LIBRARY_PATH) that means the working folder, said
// ("an empty entry (the working folder)", "'/x' (the working folder)"), or "" when none
// does: what a child never gets of memrel's own, and what a setting given for a child may not hold.
std::string working_folder_entry(const std::string& search_path);

// Waits for the child to end (retrying on EINTR) and returns its wait status.
int wait_child(pid_t pid);

// Waits for the child to end, and while an InterruptRequests is in force (platform/interrupt)
// stops it on a request: the signal is passed on once, to the child's whole group where it leads
// one (to the child alone otherwise, and not a SIGINT: the terminal's Ctrl-C reached it already),
// and after kStopGraceSeconds the child (its group, where it leads one) is SIGKILLed. Returns the
// wait status; *stopped_by is the request's signal, or 0; *killed says the grace ran out. What
// stays of its group after the child ended on the request has the rest of the grace to end too.
// `while_waiting`, when given, is called every 20 ms or so while the child runs.
int wait_child_or_stop(pid_t pid, bool own_process_group, int* stopped_by, bool* killed,
                       const std::function<void()>& while_waiting = nullptr);

// SIGKILL to the child's whole process group (the child and everything it started that stayed in
// its group), then reaps the child. Returns its wait status.
int kill_child_group(pid_t pid);

// For a process started by start_child: on SIGTERM (also its parent-death signal), SIGINT or
// SIGHUP, SIGKILL its own process group, so that what it started ends with it, having written
// kStoppedBySignalLine and the signal's number on stderr: its parent tells a request to stop
// (from outside: a cell is in a group of its own, no terminal's signal reaches it) from the
// allocator's crash, which a SIGKILL alone looked like (the thirty-first adversarial pass,
// c8-cell-sigterm-from-outside-said-sigkill-crash). Call before starting anything.
void end_own_group_on_sigterm();
inline constexpr const char* kStoppedBySignalLine = "memrel: stopped by signal ";

// The signal a process set up by end_own_group_on_sigterm said it was stopped by, from the end of
// its stderr; 0 where it said none.
int stopped_by_signal(const std::string& stderr_text);

// An anonymous file (O_TMPFILE in TMPDIR or /tmp, else a created and at once unlinked one): it
// has no name, so nothing is left behind whatever happens to this process. Close-on-exec; read
// it back with read_whole_fd. Throws std::runtime_error naming the folder.
int anonymous_file();

// The whole content of a file descriptor from offset 0.
std::string read_whole_fd(int fd);

}  // namespace memrel
