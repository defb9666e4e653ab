#include "platform/durable_append.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "platform/error_text.hpp"
#include "platform/machine_state_error.hpp"

namespace memrel {
namespace {

MachineStateError failure(const std::string& path, const std::string& what) {
  return MachineStateError(path + ": " + what + " (" + error_text(errno) + ")");
}

// An exclusive flock for as long as the file is open: a second writer is refused, not let in to
// interleave its lines (the lock goes with the descriptor, also when the process is killed).
void lock_or_refuse(int fd, const std::string& path) {
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) throw FileInUse(path + ": in use by another process that writes it");
    errno = err;
    throw failure(path, "cannot lock");
  }
}

}  // namespace

namespace {

// All of `data` written at the end of `fd` and synced, or MachineStateError/std::runtime_error
// naming `path`. A record written in part is cut off again: a full disk or `ulimit -f` (EFBIG)
// leaves the records before it whole, never half a line.
void append_and_sync(int fd, const std::string& data, const std::string& path) {
  const off_t before = lseek(fd, 0, SEEK_END);
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      if (before >= 0 && ftruncate(fd, before) == 0) fsync(fd);
      throw MachineStateError("cannot write " + path + ": " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  while (fsync(fd) != 0) {
    if (errno != EINTR) throw failure(path, "cannot sync");
  }
}

void sync_folder_of(const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  const int dir = open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
}

// PATH made with `first_record` already in it, or -1 with errno where the file system has no
// unnamed files (EOPNOTSUPP, EISDIR) or /proc is missing (ENOENT): the caller then creates it the
// plain way. Throws FileInUse when PATH appeared meanwhile.
int link_in_written_file(const std::string& path, const std::string& first_record) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  const int fd =
      open(folder.empty() ? "." : folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  // Locked before it has a name: no other process can see it unlocked.
  lock_or_refuse(fd, path);
  try {
    append_and_sync(fd, first_record, path);
  } catch (...) {
    close(fd);  // unnamed: nothing is left behind
    throw;
  }
  char unnamed[64];
  std::snprintf(unnamed, sizeof unnamed, "/proc/self/fd/%d", fd);
  if (linkat(AT_FDCWD, unnamed, AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    const int err = errno;
    close(fd);
    errno = err;
    if (err == EEXIST)
      throw FileInUse(path + ": made just now by another process, which writes it");
    if (err == ENOENT && access("/proc/self/fd", F_OK) != 0) return -1;
    throw failure(path, "cannot create");
  }
  fcntl(fd, F_SETFL, O_APPEND);
  return fd;
}

}  // namespace

DurableAppendFile DurableAppendFile::create_new(const std::string& path,
                                                const std::string& first_record) {
  // A run killed between creating its journal and writing the header left an empty file that
  // blocked the next run both ways ("continue it with --resume", and --resume: "empty file")
  // (the twentieth adversarial pass, c5-sigkill-leaves-empty-journal): the file appears whole.
  if (const int fd = link_in_written_file(path, first_record); fd >= 0) {
    sync_folder_of(path);
    return DurableAppendFile(path, fd);
  }
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT && errno != EINVAL)
    throw failure(path, "cannot create");
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  // Made by another process between its caller's look and this open: two runs of one -o started
  // together, and the second said "internal error: cannot create (File exists)", exit 4 (the
  // tenth adversarial pass, c5-two-runs-same-out-at-once). That other process writes it.
  if (fd < 0 && errno == EEXIST)
    throw FileInUse(path + ": made just now by another process, which writes it");
  if (fd < 0) throw failure(path, "cannot create");
  lock_or_refuse(fd, path);
  sync_folder_of(path);
  DurableAppendFile file(path, fd);
  try {
    file.append(first_record);
  } catch (...) {
    std::remove(path.c_str());  // made just above and empty: no file of a writer that never began
    throw;
  }
  return file;
}

DurableAppendFile DurableAppendFile::open_existing(const std::string& path,
                                                   std::uint64_t keep_bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw failure(path, "cannot open to append");
  lock_or_refuse(fd, path);  // before the cut: a live writer's lines are never cut
  if (ftruncate(fd, static_cast<off_t>(keep_bytes)) != 0 || fsync(fd) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    throw failure(path, "cannot cut to its last whole record");
  }
  return DurableAppendFile(path, fd);
}

DurableAppendFile::DurableAppendFile(DurableAppendFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

DurableAppendFile::~DurableAppendFile() {
  if (fd_ >= 0) close(fd_);
}

void DurableAppendFile::append(const std::string& data) { append_and_sync(fd_, data, path_); }

FileIdentity DurableAppendFile::identity() const {
  struct stat st {};
  if (fd_ < 0 || fstat(fd_, &st) != 0) return {};
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), true};
}

bool remove_if_same_file(const std::string& path, const FileIdentity& identity) {
  struct stat st {};
  if (!identity.known || lstat(path.c_str(), &st) != 0 ||
      static_cast<std::uint64_t>(st.st_dev) != identity.device ||
      static_cast<std::uint64_t>(st.st_ino) != identity.inode)
    return false;
  return unlink(path.c_str()) == 0;
}

}  // namespace memrel
