#include "platform/stack_limit.hpp"

#include <sys/resource.h>

namespace memrel {

std::string stack_limit_problem() {
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= kLeastStackBytes)
    return "";
  return "the stack limit is " + std::to_string(limit.rlim_cur >> 10) +
         " KiB (ulimit -s), below the " + std::to_string(kLeastStackBytes >> 10) +
         " KiB memrel and its Python parts need: raise it";
}

}  // namespace memrel
