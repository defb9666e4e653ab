#include "platform/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "platform/temporary_folder.hpp"

namespace memrel {
namespace {

void end_group(int) { kill(0, SIGKILL); }

}  // namespace

pid_t start_child(const ChildSpec& spec) {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (spec.environment.count(name) == 0) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : spec.environment) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    if (spec.own_process_group) setpgid(0, 0);
    // The parent may have died between fork and prctl: then nothing would ever signal us.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    // Signals the parent ignores or blocks must not stay so in a child that relies on them.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int null = open("/dev/null", O_RDWR);
    int fd3 = spec.fd3;
    // Out of the way of 0..3 first, so that the dup2s below cannot overwrite one another.
    if (fd3 >= 0 && fd3 <= 3) fd3 = fcntl(fd3, F_DUPFD, 10);
    int out = spec.stdout_fd >= 0 ? spec.stdout_fd : null;
    int err = spec.stderr_fd >= 0 ? spec.stderr_fd : null;
    if (out >= 0 && out <= 2) out = fcntl(out, F_DUPFD, 10);
    if (err >= 0 && err <= 2) err = fcntl(err, F_DUPFD, 10);
    if (null >= 0) dup2(null, STDIN_FILENO);
    if (out >= 0) dup2(out, STDOUT_FILENO);
    if (err >= 0) dup2(err, STDERR_FILENO);
    if (fd3 >= 0) dup2(fd3, 3);  // dup2 clears close-on-exec on the copy
    if (spec.search_path)
      execvpe(argv[0], argv.data(), envp.data());
    else
      execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  // Also from the parent's side, so that a kill of the group right after fork cannot miss it.
  if (spec.own_process_group) setpgid(pid, pid);
  return pid;
}

int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 0;  // not ours any more: nothing to wait for
  }
  return status;
}

int kill_child_group(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void end_own_group_on_sigterm() {
  // Only as the leader of a group of its own: run by hand from a script, this process shares
  // the script's group, which is not its to end.
  if (getpgrp() != getpid()) return;
  struct sigaction action {};
  action.sa_handler = end_group;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
}

int anonymous_file() {
  const std::string base = temporary_folder();
  int fd = open(base.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string tmpl = base + "/memrel-XXXXXX";
  fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("cannot create a temporary file in " + base +
                             " (TMPDIR: " + std::strerror(errno) + ")");
  unlink(tmpl.c_str());
  return fd;
}

std::string read_whole_fd(int fd) {
  std::string out;
  char buffer[65536];
  off_t offset = 0;
  while (true) {
    ssize_t n = pread(fd, buffer, sizeof buffer, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  return out;
}

}  // namespace memrel
