#include "platform/folder_room.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "platform/replace_barrier.hpp"

namespace memrel {
namespace {

// An unnamed file where the file system allows it, else a named one removed at once: the check
// leaves nothing behind.
int scratch_file(const std::string& folder) {
  int fd = open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = folder + "/memrel-check-XXXXXX";
  fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) unlink(name.c_str());
  return fd;
}

}  // namespace

std::string folder_room_problem(const std::string& folder, const std::string& label) {
  struct stat st {};
  if (stat(folder.c_str(), &st) != 0)
    return label + ": " + (errno == ENOENT ? "no such folder" : std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return label + ": not a folder";
  // A folder that keeps what is made in it (chattr +a, +i): memrel's temporary folders there
  // could be neither renamed into place nor removed (`run -w log.csv` under an append-only
  // TMPDIR: "internal error: cannot prepare TMPDIR/memrel-new-X", exit 4, the folder left; the
  // report left Python's own probe file: the fifty-seventh adversarial pass,
  // c2-tmpdir-append-only-import, c9-report-append-only-tmpdir-leftover).
  if (std::string barrier = replace_barrier(folder); !barrier.empty())
    return label + ": " + barrier + ": nothing made there could be renamed or removed";
  int fd = scratch_file(folder);
  if (fd < 0) return label + ": cannot create a file there (" + std::strerror(errno) + ")";
  // A few pages, as the smallest temporary file memrel makes would take: a full file system
  // says ENOSPC here rather than in the middle of a run.
  std::vector<char> block(64 * 1024, 0);
  std::size_t done = 0;
  int error = 0;
  while (done < block.size()) {
    ssize_t n = write(fd, block.data() + done, block.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  close(fd);
  if (error == ENOSPC || error == EDQUOT) return label + ": full (" + std::strerror(error) + ")";
  // Past `ulimit -f` (SIGXFSZ ignored): the limit, not the folder, is what to change.
  if (error == EFBIG)
    return label + ": cannot write a file of 64 KiB there (" + std::strerror(error) +
           "): the file size limit (ulimit -f) is below it";
  if (error != 0) return label + ": cannot write there (" + std::strerror(error) + ")";
  return "";
}

}  // namespace memrel
