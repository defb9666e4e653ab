#include "platform/adopted_processes.hpp"

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace memrel {
namespace {

// The parent of process `pid` as /proc says it, or 0.
pid_t parent_of(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  char text[1024];
  const std::size_t n = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  text[n] = '\0';
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses; the last ')' ends it.
  const char* end = std::strrchr(text, ')');
  if (end == nullptr) return 0;
  char state = 0;
  int parent = 0;
  if (std::sscanf(end + 1, " %c %d", &state, &parent) != 2) return 0;
  return parent;
}

std::vector<pid_t> children_of(pid_t self) {
  std::vector<pid_t> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (parent_of(static_cast<pid_t>(pid)) == self) children.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return children;
}

}  // namespace

AdoptedProcesses::AdoptedProcesses() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

AdoptedProcesses::~AdoptedProcesses() {
  const int saved_errno = errno;
  const pid_t self = getpid();
  // Each round ends the children there are; what they had becomes ours, and the next round's.
  // Bounded: a process that forks as fast as it is killed must not hold memrel for ever.
  for (int round = 0; round < 64; ++round) {
    const std::vector<pid_t> children = children_of(self);
    if (children.empty()) break;
    for (pid_t child : children) kill(child, SIGKILL);
    for (pid_t child : children)
      while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
      }
  }
  errno = saved_errno;
}

}  // namespace memrel
