// A reserve of address space for a child that runs out of it. CPython before 3.14 loops for ever
// when it runs out of memory while it unwinds an exception: the position of the handler it jumps
// to is an int it must allocate, and it retries the allocation without end (CPython gh-132508,
// gh-134163). Seen as 2 of 12 `trace import` runs under `ulimit -v 100000` that never ended, and
// a report whose chart worker never did. So a Python part starts with its soft RLIMIT_AS a
// reserve below memrel's own, and memrel, while it waits, gives the reserve back to any process
// of the part's tree that has come to its limit: the loop gets its int, the MemoryError is said,
// and the part ends with one line (exit 4). The user's limit is never exceeded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

namespace memrel {

// What the reserve holds back: enough to unwind, say "out of memory" and exit.
inline constexpr std::uint64_t kAddressSpaceReserveBytes = std::uint64_t{16} << 20;

// The soft limit a child starts with: memrel's own less the reserve; nullopt when memrel has no
// limit (nothing to reserve) or one too small to spare it (under four reserves).
std::optional<std::uint64_t> reserved_address_space_limit();

// Gives the reserve back (the soft limit raised to `limit`, memrel's own) to each process of
// `root`'s tree still at `reserved` that may be stuck for want of it: its address space within a
// few MiB of the limit (CPython's loop), or the same for a second while it kept a CPU a tenth busy
// (a large request refused far below the limit and retried for ever: numpy's OpenBLAS asked for 33
// MiB 24 MiB under it, and `history changes` hung). Giving it back to one that was not stuck costs
// only the reserve. Cheap: two /proc files per process of the tree.
class AddressSpaceRescue {
 public:
  AddressSpaceRescue(pid_t root, std::uint64_t reserved, std::uint64_t limit)
      : root_(root), reserved_(reserved), limit_(limit) {}
  void check();
  int rescued() const { return rescued_; }
  // Whether check() ended the tree (SIGKILL to `root`'s process group): a process given the
  // reserve back stayed stuck within kGiveUpWindowBytes of the limit for kGiveUpAfter more.
  // OpenBLAS retries a buffer that does not fit for ever (`history changes` under
  // `ulimit -v 180000`, the sixteenth adversarial pass): no memory memrel may give ends that.
  bool gave_up() const { return gave_up_; }

 private:
  struct Seen {
    std::uint64_t mapped = 0, cpu_ticks = 0;
    std::chrono::steady_clock::time_point since;
    std::chrono::steady_clock::time_point rescued_at;  // zero: not given the reserve back
  };
  void check_process(pid_t pid, int depth);
  bool stuck(pid_t pid, std::uint64_t mapped);

  pid_t root_;
  std::uint64_t reserved_, limit_;
  int rescued_ = 0;
  bool gave_up_ = false;
  std::map<pid_t, Seen> seen_;
};

}  // namespace memrel
