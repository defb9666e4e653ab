#include "platform/error_text.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace memrel {

std::string error_text(int err) {
  std::string text = std::strerror(err);
  struct rlimit limit {};
  if (err == EMFILE && getrlimit(RLIMIT_NOFILE, &limit) == 0)
    text +=
        " (the open-files limit, ulimit -n, is " + std::to_string(limit.rlim_cur) + ": raise it)";
  return text;
}

}  // namespace memrel
