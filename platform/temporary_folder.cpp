#include "platform/temporary_folder.hpp"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>

#include "platform/folder_room.hpp"

namespace memrel {
namespace {

std::string label() {
  const char* dir = std::getenv("TMPDIR");
  if (dir && *dir) return std::string("TMPDIR (") + dir + ")";
  return "/tmp (TMPDIR is not set)";
}

// The room memrel leaves for its own paths below the folder: its longest there, an imported
// trace's temporary (memrel-run-XXXXXX/.trace-1.memtrace-PID-HEX.tmp) or a cell's files, take
// about 60 bytes; twice that leaves them room.
constexpr std::size_t kTemporaryRoom = 128;

}  // namespace

std::string temporary_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

std::string temporary_folder_problem() {
  const std::string folder = temporary_folder();
  // A path that leaves no room for what memrel makes in it: a relative TMPDIR of 4070 bytes made
  // the run's imported trace "-o TMPDIR/memrel-run-X/trace-1.memtrace: the path is over 4080
  // bytes long", exit 2, an -o nobody gave (the seventy-eighth adversarial pass,
  // c9-run-relative-long-tmpdir-blamed-on-o).
  std::string absolute = folder;
  if (folder.front() != '/') {
    char here[PATH_MAX];
    if (getcwd(here, sizeof here) != nullptr) absolute = std::string(here) + "/" + folder;
  }
  if (absolute.size() + kTemporaryRoom >= PATH_MAX)
    return label() + ": its path is " + std::to_string(absolute.size()) +
           " bytes long, leaving less than " + std::to_string(kTemporaryRoom) + " under the " +
           std::to_string(PATH_MAX) + "-byte limit of a path for what memrel makes in it";
  return folder_room_problem(folder, label());
}

}  // namespace memrel
