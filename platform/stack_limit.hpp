// The stack limit (RLIMIT_STACK, `ulimit -s`) memrel needs: under 64 KiB `run`, `trace import`
// and `report` died of SIGSEGV, exit 139, without a word (the seventeenth adversarial pass,
// c8-ulimit-s-64k-segfault); 128 KiB was enough for each (the default is 8 MiB). Checked once,
// first thing in main: the machine's limit, said in one line, exit 4.
#pragma once

#include <cstdint>

namespace memrel {

inline constexpr std::uint64_t kLeastStackBytes = std::uint64_t{128} << 10;

// Whether the soft stack limit is below kLeastStackBytes; if so, "memrel: the stack limit is N
// KiB (ulimit -s), ...: raise it" has been written to stderr. Calls nothing but getrlimit and
// write, and builds the line on its own stack: under 16 KiB the first call into libstdc++ bound
// a symbol (the dynamic linker's resolver saves the vector registers, kilobytes) and died of
// SIGSEGV before the check (the fifty-sixth adversarial pass, c8-ulimit-s-tiny-segfault-no-line).
// memrel is linked with -z now so that its own calls to these two are bound before main.
bool said_stack_limit_too_small();

}  // namespace memrel
