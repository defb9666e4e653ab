// A zygote: a process that has loaded what its children need and forks a fresh child per request,
// so that each child starts warm (libraries loaded, their static initialisation done) instead of
// paying exec and library loading again. It knows nothing of what it preloads or runs: the caller
// loads before serving and hands over the function a child runs.
//
// The parent talks to it over a socket (a SOCK_SEQPACKET pair, the zygote's end as its descriptor
// 3): a request carries a command line, environment to add and the child's descriptors (stdout,
// stderr, 3, passed as SCM_RIGHTS); the zygote answers with the child's pid, and later with its
// wait status when it ends, since only the zygote can wait for it.
//
// Nothing outlives its parent: the zygote is a child_process child (own group, parent-death
// signal); each of its children gets a group of its own and the parent-death signal too; the
// zygote ends its children's groups when the parent goes (SIGTERM, or the socket's end of file)
// before it exits. A child is treated as start_child's are: the parent may SIGKILL its group.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/child_process.hpp"

namespace memrel {

// The parent's end.
class ZygoteClient {
 public:
  // Starts `zygote` (args[0] the executable; it must call serve_zygote on descriptor 3) and waits
  // up to `ready_within` for it to say it is ready. Returns nullptr with `why` set when it cannot
  // serve (it could not start, exited, refused: see fork_hazard), after ending it.
  static std::unique_ptr<ZygoteClient> start(const ChildSpec& zygote,
                                             std::chrono::milliseconds ready_within,
                                             std::string* why);
  ~ZygoteClient();  // ends the zygote and, with it, any child still running
  ZygoteClient(const ZygoteClient&) = delete;
  ZygoteClient& operator=(const ZygoteClient&) = delete;

  // A child running spec.args (no exec: the zygote's function gets them) with spec.environment
  // added, its stdout, stderr and descriptor 3 as spec says. Throws std::runtime_error when the
  // zygote cannot fork or is gone; the caller may then start the child by exec instead.
  pid_t start_child(const ChildSpec& spec);

  // The child's wait status once it has ended; empty while it runs. A child of a zygote that
  // died is reported as killed by SIGKILL (its parent-death signal ended it).
  std::optional<int> exited(pid_t child);

  // SIGKILL to the child's group, then its wait status (as the zygote reports it).
  int kill_child(pid_t child);

  pid_t pid() const { return pid_; }
  // The zygote has ended (its children with it, reported as killed by SIGKILL).
  bool gone() const { return gone_; }
  // Children started and not yet reported ended.
  std::size_t running() const { return running_.size(); }

 private:
  ZygoteClient(pid_t pid, int socket) : pid_(pid), socket_(socket) {}
  // Reads the zygote's messages: waits up to `wait` for the first; false at end of file.
  // read_messages until a reply, at most within_ms: false when the zygote is gone; throws
  // MachineStateError when it is stopped from outside before it `before` ("was ready").
  bool await_reply(int within_ms, std::string* reply, const std::string& before);
  static constexpr int kReplySliceMs = 100;
  bool read_messages(int wait_ms, std::string* reply);
  void zygote_gone();

  pid_t pid_;
  int socket_;
  bool gone_ = false;
  std::vector<pid_t> running_;
  std::map<pid_t, int> ended_;
};

// The zygote's end, on descriptor `control`: says it is ready (or, with `refusal` not empty, that
// it will not serve, and why, and returns), then forks a child per request until the parent
// closes the socket or dies. A child runs `run(args)` with its environment, descriptors, process
// group and parent-death signal set as start_child would set them, and exits with what it
// returns (through exit(), as a process that returned from main). Returns the zygote's own exit
// code.
int serve_zygote(int control, const std::function<int(const std::vector<std::string>&)>& run,
                 const std::string& refusal);

// Why forking this process would give children that cannot work, or empty: an open device file
// of the GPU driver (a CUDA context or NVML was initialised: a forked child's CUDA is unusable),
// or threads besides this one (a lock one of them holds stays locked in the child forever).
std::string fork_hazard();

}  // namespace memrel
