// Which process a pid was, told apart from a later process given the same pid: the pid, the
// time it started (clock ticks after boot, /proc/PID/stat's field 22) and the boot it started in
// (/proc/sys/kernel/random/boot_id). A run's journal records its writer so: a lock is held on a
// file, and a journal replaced by an edited copy (an editor's save by rename) is a file no live
// run locks, though its run still goes (the seventieth adversarial pass,
// c5-resume-live-after-journal-replaced).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace memrel {

struct ProcessIdentity {
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::string boot;  // boot_id, a UUID; "" where /proc does not say it

  bool operator==(const ProcessIdentity& other) const {
    return pid == other.pid && start_ticks == other.start_ticks && boot == other.boot;
  }
};

// This process's identity; nullopt where /proc cannot say it (no identity is then recorded).
std::optional<ProcessIdentity> this_process_identity();

// Whether the process that `identity` names is still running here: the same boot, a process
// with its pid that started at the same tick, not a zombie. False when it is gone, ended, or
// of another boot or machine (which cannot be asked: a journal on a shared file system).
bool process_still_runs(const ProcessIdentity& identity);

}  // namespace memrel
