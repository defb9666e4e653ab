#include "platform/process_exit.hpp"

#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
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

bool runs_this_program_or_has_ended(pid_t pid) {
  if (pid <= 0) return true;
  struct stat self {
  }, other{};
  if (::stat("/proc/self/exe", &self) != 0) return false;
  if (::stat(("/proc/" + std::to_string(pid) + "/exe").c_str(), &other) != 0) {
    if (errno != ENOENT) return false;  // EACCES: another user's process
    // Gone, or a zombie (ended); but a kernel thread has no program either, and lives: --after-pid
    // 2 waited for kthreadd until killed (the eighteenth adversarial pass,
    // c4-cell-after-pid-kernel-thread-hangs).
    // A process that is exiting has no program either (its memory is gone), and is ours: told
    // apart by the kernel thread's flag (PF_KTHREAD), field 9 of its stat.
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    if (!stat_file.is_open()) return true;  // gone
    std::string text((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    const std::size_t end = text.rfind(')');
    if (end == std::string::npos) return true;
    std::istringstream fields(text.substr(end + 1));
    std::string state;
    long long parent = 0, group = 0, session = 0, tty = 0, terminal_group = 0;
    unsigned long long flags = 0;
    fields >> state >> parent >> group >> session >> tty >> terminal_group >> flags;
    constexpr unsigned long long kKernelThread = 0x00200000;  // PF_KTHREAD
    return !fields || (flags & kKernelThread) == 0;
  }
  return self.st_dev == other.st_dev && self.st_ino == other.st_ino;
}

}  // namespace memrel
