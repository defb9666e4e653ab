#include "platform/replace_barrier.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "platform/owned_fd.hpp"

namespace memrel {

std::string replace_barrier(const std::string& path) {
  // O_PATH gives no ioctl; O_RDONLY needs read permission, which a file one may replace (its
  // folder writable) can lack: then it is not asked, and a rename that fails says so itself.
  // O_NONBLOCK: a FIFO at the path is refused before this is asked, but never waits here.
  OwnedFd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW));
  if (fd.get() < 0) return "";
  int flags = 0;
  if (ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) != 0) return "";
  if ((flags & FS_IMMUTABLE_FL) != 0) return "is immutable (chattr +i)";
  if ((flags & FS_APPEND_FL) != 0) return "is append-only (chattr +a)";
  return "";
}

}  // namespace memrel
