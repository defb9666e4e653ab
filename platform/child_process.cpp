#include "platform/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "platform/error_text.hpp"
#include "platform/interrupt.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/temporary_folder.hpp"

namespace memrel {
namespace {

// Async-signal-safe: the line built in place, one write, then the group (this process too).
void say_stop_and_end_group(int signal) {
  char line[64];
  std::size_t n = 0;
  for (const char* c = kStoppedBySignalLine; *c != '\0'; ++c) line[n++] = *c;
  char digits[4];
  std::size_t d = 0;
  for (int v = signal; v > 0 && d < sizeof digits; v /= 10)
    digits[d++] = static_cast<char>('0' + v % 10);
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  [[maybe_unused]] ssize_t written = write(STDERR_FILENO, line, n);
  kill(0, SIGKILL);
}

// PATH's entries that name a folder other than the working one: an empty entry or a relative one
// means the working folder, so a bare `python3` ran ./python3 from wherever memrel was started
// (the fourth adversarial pass, c10), and so did an absolute spelling of it, `/proc/self/cwd`
// (the fifth, c10 again): the working folder is told by identity, as PYTHONPATH's entries are
// (scripts/memrel_entry.py).
std::vector<std::string> search_path_entries(const std::string& path) {
  std::vector<std::string> entries;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    entries.push_back(path.substr(start, colon - start));
    start = colon + 1;
  }
  return entries;
}

bool is_folder(const std::string& entry, const struct stat& folder) {
  struct stat here {};
  return stat(entry.c_str(), &here) == 0 && here.st_dev == folder.st_dev &&
         here.st_ino == folder.st_ino;
}

std::vector<std::string> path_entries_outside_working_folder(const std::string& path) {
  std::vector<std::string> kept;
  struct stat working_folder {};
  if (stat(".", &working_folder) != 0) return kept;
  for (const std::string& entry : search_path_entries(path)) {
    struct stat folder {};
    if (entry.empty() || entry[0] != '/' || stat(entry.c_str(), &folder) != 0 ||
        is_folder(entry, working_folder))
      continue;
    kept.push_back(entry);
  }
  return kept;
}

std::string our_path() {
  const char* env = std::getenv("PATH");
  return env != nullptr ? env : "/bin:/usr/bin";  // execvp's default
}

// `name` looked up on PATH as execvp would, but only in the entries above. "" when none holds it.
std::string find_on_path(const std::string& name) {
  for (const std::string& entry : path_entries_outside_working_folder(our_path())) {
    const std::string candidate = entry + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

// The PATH a child gets: those entries alone. A program found on PATH may itself look a command
// up on it (pyenv's `python3` shim runs `pyenv exec`, which searched "." and ran the working
// folder's ./python3: the twenty-fourth adversarial pass, c3-pyenv-shim-*).
std::string child_path() {
  std::string joined;
  for (const std::string& entry : path_entries_outside_working_folder(our_path()))
    joined += (joined.empty() ? "" : ":") + entry;
  return joined;
}

// The LD_LIBRARY_PATH a child gets, by the same rule: an empty entry (`export
// LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` with it unset gives one) or a relative one is the
// working folder to the dynamic linker, and a backend file's bare library name was loaded from
// there, its constructor run (the sixty-first adversarial pass,
// c3-ld-library-path-empty-entry-loads-cwd-library). Empty when no entry is left: then unset.
std::string child_library_path() {
  std::string joined;
  for (const std::string& entry : child_library_folders())
    joined += (joined.empty() ? "" : ":") + entry;
  return joined;
}

bool removed_by_prefix(const std::string& name, const ChildSpec& spec) {
  for (const std::string& prefix : spec.removed_environment_prefixes)
    if (name.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

bool removed_from_environment(const std::string& name, const ChildSpec& spec) {
  if (spec.environment.count(name) != 0) return true;  // replaced
  if (removed_by_prefix(name, spec)) return true;
  // child_path() and child_library_path() instead
  return name == "PATH" || name == "LD_LIBRARY_PATH";
}

}  // namespace

std::vector<std::string> child_library_folders() {
  const char* env = std::getenv("LD_LIBRARY_PATH");
  return env == nullptr ? std::vector<std::string>{} : path_entries_outside_working_folder(env);
}

std::string working_folder_entry(const std::string& search_path) {
  struct stat working_folder {};
  const bool known = stat(".", &working_folder) == 0;
  for (const std::string& entry : search_path_entries(search_path)) {
    if (entry.empty()) return "an empty entry (the working folder)";
    if (entry[0] != '/') return "the relative entry '" + entry + "' (read from the working folder)";
    if (known && is_folder(entry, working_folder)) return "'" + entry + "' (the working folder)";
  }
  return "";
}

std::string program_as_run(const std::string& name) {
  return name.find('/') != std::string::npos ? name : find_on_path(name);
}

pid_t start_child(const ChildSpec& spec) {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The program to run: a name without '/' looked up on PATH's absolute entries (find_on_path);
  // "" (not found) ends the child with 127, as an exec that fails does.
  std::string program = spec.args.empty() ? "" : spec.args[0];
  if (spec.search_path && program.find('/') == std::string::npos) program = find_on_path(program);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (!removed_from_environment(name, spec)) env_strings.push_back(entry);
  }
  if (spec.environment.count("PATH") == 0 && std::getenv("PATH") != nullptr)
    env_strings.push_back("PATH=" + child_path());
  if (spec.environment.count("LD_LIBRARY_PATH") == 0 && !removed_by_prefix("LD_LIBRARY_PATH", spec))
    if (const std::string kept = child_library_path(); !kept.empty())
      env_strings.push_back("LD_LIBRARY_PATH=" + kept);
  for (const auto& [k, v] : spec.environment) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  // Where the child says why its exec failed (its errno); above 9, out of the way of the dup2s
  // to 0..3 below, even with one of them closed in the parent.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    throw MachineStateError("cannot make a pipe: " + error_text(errno));
  for (int& end : report) {
    const int high = fcntl(end, F_DUPFD_CLOEXEC, 10);
    if (high >= 0) {
      close(end);
      end = high;
    }
  }

  pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(report[0]);
    close(report[1]);
    throw MachineStateError(std::string("fork failed: ") + error_text(err));
  }
  if (pid == 0) {
    if (spec.own_process_group) setpgid(0, 0);
    if (spec.address_space_soft_limit != 0) {
      struct rlimit limit {};
      getrlimit(RLIMIT_AS, &limit);
      limit.rlim_cur = spec.address_space_soft_limit;
      setrlimit(RLIMIT_AS, &limit);
    }
    // The parent may have died between fork and prctl: then nothing would ever signal us.
    prctl(PR_SET_PDEATHSIG, spec.parent_death_signal);
    if (getppid() != parent) _exit(127);
    // Signals the parent ignores or blocks must not stay so in a child that relies on them.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // A descriptor the child cannot set up ends it as an exec that fails does, its errno said:
    // under `ulimit -n 8` a failed copy left the parent's stdout in place, and git's and
    // memrel_bench's output landed on memrel's own (the forty-ninth adversarial pass,
    // c9-run-emfile-git-on-stdout, c9-bench-emfile-child-stdout).
    auto fail = [&report]() {
      const int why = errno;
      if (write(report[1], &why, sizeof why) < 0) _exit(127);
      _exit(127);
    };
    int null = open("/dev/null", O_RDWR);
    if (null < 0) fail();
    int fd3 = spec.fd3;
    // Already fd 3 (a parent under `ulimit -n 12` has only low numbers free): kept where it is,
    // only its close-on-exec cleared. A copy to 10 and above failed there, and the child lost its
    // fd 3 at exec (the fifteenth adversarial pass, c8-nofile-12-*: memrel_entry.py's mark never
    // arrived, and an import that had written its trace was said to be no Python's).
    if (fd3 == 3) {
      fcntl(3, F_SETFD, 0);
      fd3 = -1;
    }
    // Out of the way of 0..3 first, so that the dup2s below cannot overwrite one another: the
    // lowest free descriptor from 4 on.
    if (fd3 >= 0 && fd3 <= 2 && (fd3 = fcntl(fd3, F_DUPFD, 4)) < 0) fail();
    int out = spec.stdout_fd >= 0 ? spec.stdout_fd : null;
    int err = spec.stderr_fd >= 0 ? spec.stderr_fd : null;
    if (out <= 3 && (out = fcntl(out, F_DUPFD, 4)) < 0) fail();
    if (err <= 3 && (err = fcntl(err, F_DUPFD, 4)) < 0) fail();
    if (dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        dup2(err, STDERR_FILENO) < 0)
      fail();
    if (fd3 >= 0 && dup2(fd3, 3) < 0) fail();  // dup2 clears close-on-exec on the copy
    if (!program.empty()) execve(program.c_str(), argv.data(), envp.data());
    const int why = program.empty() ? ENOENT : errno;
    if (write(report[1], &why, sizeof why) < 0) _exit(127);
    _exit(127);
  }
  // Also from the parent's side, so that a kill of the group right after fork cannot miss it.
  if (spec.own_process_group) setpgid(pid, pid);
  close(report[1]);
  int err = 0;
  ssize_t n = 0;
  while ((n = read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    wait_child(pid);
    throw ChildStartError("cannot start " + (spec.args.empty() ? std::string("?") : spec.args[0]) +
                          ": " + error_text(err) +
                          (spec.search_path && program.empty() ? " (not on PATH)" : ""));
  }
  return pid;
}

int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 0;  // not ours any more: nothing to wait for
  }
  return status;
}

int wait_child_or_stop(pid_t pid, bool own_process_group, int* stopped_by, bool* killed,
                       const std::function<void()>& while_waiting) {
  *stopped_by = 0;
  *killed = false;
  std::chrono::steady_clock::time_point deadline;
  while (true) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      // A wrapper (a shim that runs python without exec) may end on the request before what it
      // started, which had the request too and is cleaning up: the group has the rest of the
      // grace (killed at once, its report's DIR.tmp-PID was left: the twenty-fourth adversarial
      // pass, c9-sigterm-report-wrapper-python).
      if (*stopped_by != 0 && own_process_group)
        while (kill(-pid, 0) == 0 && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return status;
    }
    if (r < 0 && errno != EINTR) return 0;  // not ours any more: nothing to wait for
    if (*stopped_by == 0 && InterruptRequests::received() != 0) {
      *stopped_by = InterruptRequests::received();
      // The child cleans up and says so (a report ends its own plot workers). To its whole group,
      // as a terminal's Ctrl-C goes: a wrapper interpreter passes no signal on, and the Python it
      // ran finished its work after SIGINT, exit 0 (the twenty-fourth pass,
      // c9-sigint-*-wrapper-python).
      if (own_process_group)
        kill(-pid, *stopped_by);
      else if (*stopped_by != SIGINT)
        kill(pid, *stopped_by);
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kStopGraceSeconds);
    }
    if (*stopped_by != 0 && std::chrono::steady_clock::now() > deadline) {
      *killed = true;
      if (own_process_group) return kill_child_group(pid);
      kill(pid, SIGKILL);
      return wait_child(pid);
    }
    if (while_waiting) while_waiting();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
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
  action.sa_handler = say_stop_and_end_group;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) sigaction(signal, &action, nullptr);
}

int stopped_by_signal(const std::string& stderr_text) {
  std::string text = stderr_text;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const std::size_t line = text.rfind('\n');
  const std::string last = line == std::string::npos ? text : text.substr(line + 1);
  const std::string prefix = kStoppedBySignalLine;
  if (last.rfind(prefix, 0) != 0) return 0;
  const std::string number = last.substr(prefix.size());
  if (number.empty() || number.size() > 3 ||
      number.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  return std::stoi(number);
}

int anonymous_file() {
  const std::string base = temporary_folder();
  int fd = open(base.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string tmpl = base + "/memrel-XXXXXX";
  fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0)
    throw MachineStateError(
        "cannot create a temporary file in " + base + " (" +
        (errno == EMFILE ? error_text(errno) : "TMPDIR: " + std::string(std::strerror(errno))) +
        ")");
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
