#include "platform/stack_limit.hpp"

#include <sys/resource.h>
#include <unistd.h>

namespace memrel {
namespace {

// Appends text to the line at *end (no library call).
void append(char*& end, const char* text) {
  while (*text != '\0') *end++ = *text++;
}

void append_number(char*& end, std::uint64_t n) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  while (count > 0) *end++ = digits[--count];
}

}  // namespace

bool said_stack_limit_too_small() {
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= kLeastStackBytes)
    return false;
  char line[200];
  char* end = line;
  append(end, "memrel: the stack limit is ");
  append_number(end, limit.rlim_cur >> 10);
  append(end, " KiB (ulimit -s), below the ");
  append_number(end, kLeastStackBytes >> 10);
  append(end, " KiB memrel and its Python parts need: raise it\n");
  const ssize_t written = write(STDERR_FILENO, line, static_cast<std::size_t>(end - line));
  (void)written;  // nothing more can be said
  return true;
}

}  // namespace memrel
