#include "platform/process_exit.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>

#include "platform/owned_fd.hpp"

namespace memrel {

std::uint64_t wait_until_process_ends(pid_t pid) {
  const auto start = std::chrono::steady_clock::now();
  auto waited = [&] {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count());
  };
  if (pid <= 0) return 0;
#ifdef SYS_pidfd_open
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {
    OwnedFd pidfd(fd);
    // A pidfd becomes readable when the process has exited (a zombie counts as ended).
    pollfd p{pidfd.get(), POLLIN, 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    return waited();
  }
  if (errno == ESRCH) return 0;  // already gone (and reaped)
#endif
  while (kill(pid, 0) == 0 || errno == EPERM)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return waited();
}

}  // namespace memrel
