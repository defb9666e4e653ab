#include "platform/temporary_folder.hpp"

#include <cstdlib>

#include "platform/folder_room.hpp"

namespace memrel {
namespace {

std::string label() {
  const char* dir = std::getenv("TMPDIR");
  if (dir && *dir) return std::string("TMPDIR (") + dir + ")";
  return "/tmp (TMPDIR is not set)";
}

}  // namespace

std::string temporary_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

std::string temporary_folder_problem() { return folder_room_problem(temporary_folder(), label()); }

}  // namespace memrel
