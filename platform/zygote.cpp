#include "platform/zygote.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "platform/machine_state_error.hpp"
#include "platform/process_state.hpp"

namespace memrel {
namespace {

// One message: strings, each ended by a NUL, and up to three descriptors.
constexpr std::size_t kMaxMessage = 1 << 16;
constexpr int kMaxFds = 3;

std::string encode(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    out += p;
    out.push_back('\0');
  }
  return out;
}

std::vector<std::string> decode(const char* data, std::size_t size) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at < size) {
    const void* end = std::memchr(data + at, '\0', size - at);
    std::size_t stop = end ? static_cast<std::size_t>(static_cast<const char*>(end) - data) : size;
    parts.emplace_back(data + at, stop - at);
    at = stop + 1;
  }
  return parts;
}

bool send_message(int socket, const std::vector<std::string>& parts,
                  const std::vector<int>& fds = {}) {
  std::string payload = encode(parts);
  iovec io{payload.data(), payload.size()};
  msghdr msg{};
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  while (true) {
    ssize_t n = sendmsg(socket, &msg, MSG_NOSIGNAL);
    if (n >= 0) return true;
    if (errno != EINTR) return false;
  }
}

// Empty at end of file (or an error); `fds` gets the descriptors that came with it.
std::optional<std::vector<std::string>> receive_message(int socket, std::vector<int>* fds) {
  std::vector<char> buffer(kMaxMessage);
  iovec io{buffer.data(), buffer.size()};
  msghdr msg{};
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      if (fds)
        fds->push_back(fd);
      else
        close(fd);
    }
  }
  return decode(buffer.data(), static_cast<std::size_t>(n));
}

// --- the zygote's side ---------------------------------------------------------------------------

// The children still running, for the signal handler: a fixed array, written only outside it.
constexpr int kMaxChildren = 1024;
volatile pid_t children[kMaxChildren];

void remember(pid_t pid) {
  for (auto& slot : children) {
    if (slot == 0) {
      slot = pid;
      return;
    }
  }
}

void forget(pid_t pid) {
  for (auto& slot : children) {
    if (slot == pid) slot = 0;
  }
}

void end_children() {
  for (auto& slot : children) {
    if (slot > 0) {
      kill(-slot, SIGKILL);
      kill(slot, SIGKILL);
    }
  }
}

// SIGTERM (the parent-death signal, or the parent ending us): the children's groups, then us.
void on_terminate(int) {
  end_children();
  _exit(143);
}

// In the forked child: what start_child does between fork and exec, then the function.
[[noreturn]] void become_child(pid_t zygote, int control, const std::vector<std::string>& parts,
                               const std::vector<int>& fds,
                               const std::function<int(const std::vector<std::string>&)>& run) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != zygote) _exit(127);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  close(control);
  // parts: "start", mask ("1" where stdout, stderr, fd3 came, in that order), argc, args..., then
  // NAME, VALUE pairs to add to the environment.
  const std::string& mask = parts[1];
  std::size_t argc = std::stoul(parts[2]);
  std::vector<std::string> args(parts.begin() + 3, parts.begin() + 3 + static_cast<long>(argc));
  for (std::size_t i = 3 + argc; i + 1 < parts.size(); i += 2)
    setenv(parts[i].c_str(), parts[i + 1].c_str(), 1);
  int null = open("/dev/null", O_RDWR);
  int given[3] = {-1, -1, -1};
  std::size_t next = 0;
  for (int i = 0; i < 3; ++i) {
    if (mask[static_cast<std::size_t>(i)] == '1' && next < fds.size()) given[i] = fds[next++];
  }
  // Out of the way of 0..3 first, so that the dup2s below cannot overwrite one another.
  for (int& fd : given) {
    if (fd >= 0 && fd <= 3) fd = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  }
  dup2(null, STDIN_FILENO);
  dup2(given[0] >= 0 ? given[0] : null, STDOUT_FILENO);
  dup2(given[1] >= 0 ? given[1] : null, STDERR_FILENO);
  if (given[2] >= 0)
    dup2(given[2], 3);
  else
    close(3);
  int code = run(args);
  std::fflush(nullptr);
  // The cell's result is written (a raw descriptor, not a stream): the process's teardown
  // (the CUDA context, LibTorch's and the frameworks' static destructors, 0.2-0.4 s a cell on an
  // H200) measures nothing, and the driver frees what the process held when it ends either way.
  _exit(code);
}

}  // namespace

std::string fork_hazard() {
  if (DIR* dir = opendir("/proc/self/fd")) {
    std::string found;
    while (dirent* e = readdir(dir)) {
      char target[256] = {};
      std::string link = std::string("/proc/self/fd/") + e->d_name;
      ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
      if (n > 0 && std::strncmp(target, "/dev/nvidia", 11) == 0) {
        found = target;
        break;
      }
    }
    closedir(dir);
    if (!found.empty())
      return "the GPU driver is open (" + found +
             "): something created a CUDA context or initialised NVML before the fork";
  }
  std::size_t threads = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* e = readdir(dir)) threads += e->d_name[0] != '.';
    closedir(dir);
  }
  if (threads > 1)
    return std::to_string(threads - 1) + " thread(s) besides the main one run: a lock one of " +
           "them holds would stay locked in every child";
  return "";
}

int serve_zygote(int control, const std::function<int(const std::vector<std::string>&)>& run,
                 const std::string& refusal) {
  if (!refusal.empty()) {
    send_message(control, {"refused", refusal});
    return 0;
  }
  struct sigaction action {};
  action.sa_handler = on_terminate;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  const pid_t self = getpid();
  if (!send_message(control, {"ready"})) return 0;
  std::fflush(nullptr);  // nothing buffered may be written twice, by a child too
  while (true) {
    // Children that ended: their status to the parent.
    int status = 0;
    for (pid_t done; (done = waitpid(-1, &status, WNOHANG)) > 0;) {
      forget(done);
      send_message(control, {"ended", std::to_string(done), std::to_string(status)});
    }
    pollfd p{control, POLLIN, 0};
    int ready = poll(&p, 1, 2);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    std::vector<int> fds;
    auto parts = receive_message(control, &fds);
    if (!parts) break;  // the parent closed its end, or is gone
    if (parts->size() < 3 || (*parts)[0] != "start" || (*parts)[1].size() != 3) {
      for (int fd : fds) close(fd);
      send_message(control, {"failed", "malformed request"});
      continue;
    }
    pid_t child = fork();
    if (child == 0) become_child(self, control, *parts, fds, run);
    for (int fd : fds) close(fd);
    if (child < 0) {
      send_message(control, {"failed", std::string("fork failed: ") + std::strerror(errno)});
      continue;
    }
    setpgid(child, child);  // also from here, so that a kill of the group right after cannot miss
    remember(child);
    send_message(control, {"started", std::to_string(child)});
  }
  end_children();
  for (pid_t done; (done = waitpid(-1, nullptr, 0)) > 0 || (done < 0 && errno == EINTR);) {
  }
  return 0;
}

// --- the parent's side ---------------------------------------------------------------------------

std::unique_ptr<ZygoteClient> ZygoteClient::start(const ChildSpec& zygote,
                                                  std::chrono::milliseconds ready_within,
                                                  std::string* why) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    *why = std::string("socketpair failed: ") + std::strerror(errno);
    return nullptr;
  }
  ChildSpec spec = zygote;
  spec.fd3 = pair[1];
  pid_t pid = 0;
  try {
    pid = memrel::start_child(spec);
  } catch (const std::runtime_error& e) {
    close(pair[0]);
    close(pair[1]);
    *why = e.what();
    return nullptr;
  }
  close(pair[1]);
  std::unique_ptr<ZygoteClient> client(new ZygoteClient(pid, pair[0]));
  std::string reply;
  if (!client->await_reply(static_cast<int>(ready_within.count()), &reply, "was ready")) {
    *why = "it ended before it was ready (a crash while loading?)";
    return nullptr;
  }
  if (reply.empty()) {
    *why = "it did not say it was ready within " + std::to_string(ready_within.count()) + " ms";
    return nullptr;
  }
  if (reply != "ready") {
    *why = reply;
    return nullptr;
  }
  return client;
}

ZygoteClient::~ZygoteClient() {
  close(socket_);  // the zygote ends and reaps its children, and exits, at end of file
  for (int waited_ms = 0; waited_ms < 2000; waited_ms += 5) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_ || (done < 0 && errno != EINTR)) return;
    usleep(5000);
  }
  kill_child_group(pid_);  // stuck: its children's parent-death signal ends them
}

// Messages until the first reply (ready, refused, started, failed), which goes to `reply`;
// "ended" reports are kept. With `reply` null, only what is there now.
bool ZygoteClient::await_reply(int within_ms, std::string* reply, const std::string& before) {
  // In slices: a zygote stopped from outside (SIGSTOP, a debugger) is said at once, as the
  // machine's state; waited on, the cell was recorded as the allocator's `timeout` (the
  // thirty-fourth adversarial pass, c8-zygote-stopped-recorded-as-cell-timeout).
  for (int waited = 0; reply->empty() && waited < within_ms; waited += kReplySliceMs) {
    if (!read_messages(std::min(kReplySliceMs, within_ms - waited), reply)) return false;
    if (reply->empty() && process_is_stopped(pid_))
      throw MachineStateError("memrel's zygote (process " + std::to_string(pid_) + ")" +
                              kStoppedFromOutside + " before it " + before +
                              "; not the allocator's failure. The run stopped");
  }
  return true;
}

bool ZygoteClient::read_messages(int wait_ms, std::string* reply) {
  while (true) {
    pollfd p{socket_, POLLIN, 0};
    int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return true;  // nothing (more) for now
    auto parts = receive_message(socket_, nullptr);
    if (!parts || parts->empty()) {
      zygote_gone();
      return false;
    }
    const std::string& kind = (*parts)[0];
    if (kind == "ended" && parts->size() == 3) {
      pid_t child = static_cast<pid_t>(std::stol((*parts)[1]));
      ended_[child] = std::stoi((*parts)[2]);
      running_.erase(std::remove(running_.begin(), running_.end(), child), running_.end());
      if (!reply) wait_ms = 0;
      continue;
    }
    if (reply) {
      *reply = kind == "refused" || kind == "failed"
                   ? kind + ": " + (parts->size() > 1 ? (*parts)[1] : "")
                   : kind + (parts->size() > 1 ? " " + (*parts)[1] : "");
      if (kind == "ready") *reply = "ready";
      return true;
    }
    wait_ms = 0;
  }
}

void ZygoteClient::zygote_gone() {
  if (gone_) return;
  gone_ = true;
  // Its children died with it (their parent-death signal): each one as killed.
  for (pid_t child : running_) {
    kill(-child, SIGKILL);
    ended_[child] = SIGKILL;
  }
  running_.clear();
}

pid_t ZygoteClient::start_child(const ChildSpec& spec) {
  if (gone_) throw std::runtime_error("the zygote is gone");
  std::vector<std::string> parts = {"start", "", std::to_string(spec.args.size())};
  std::vector<int> fds;
  for (int fd : {spec.stdout_fd, spec.stderr_fd, spec.fd3}) {
    parts[1].push_back(fd >= 0 ? '1' : '0');
    if (fd >= 0) fds.push_back(fd);
  }
  parts.insert(parts.end(), spec.args.begin(), spec.args.end());
  for (const auto& [name, value] : spec.environment) {
    parts.push_back(name);
    parts.push_back(value);
  }
  if (!send_message(socket_, parts, fds)) {
    zygote_gone();
    throw std::runtime_error("the zygote is gone");
  }
  std::string reply;
  // A fork takes milliseconds; a zygote that does not answer in 30 s is stuck.
  if (!await_reply(30000, &reply, "started a cell")) throw std::runtime_error("the zygote is gone");
  if (reply.rfind("started ", 0) != 0)
    throw std::runtime_error(reply.empty() ? "the zygote did not answer" : reply);
  pid_t child = static_cast<pid_t>(std::stol(reply.substr(8)));
  running_.push_back(child);
  return child;
}

std::optional<int> ZygoteClient::exited(pid_t child) {
  read_messages(0, nullptr);
  auto it = ended_.find(child);
  if (it == ended_.end()) return std::nullopt;
  int status = it->second;
  ended_.erase(it);
  return status;
}

int ZygoteClient::kill_child(pid_t child) {
  kill(-child, SIGKILL);
  kill(child, SIGKILL);
  for (int waited = 0; waited < 10000; waited += 10) {
    if (auto status = exited(child)) return *status;
    read_messages(10, nullptr);
  }
  return SIGKILL;
}

}  // namespace memrel
