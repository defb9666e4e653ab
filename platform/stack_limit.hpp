// The stack limit (RLIMIT_STACK, `ulimit -s`) memrel needs: under 64 KiB `run`, `trace import`
// and `report` died of SIGSEGV, exit 139, without a word (the seventeenth adversarial pass,
// c8-ulimit-s-64k-segfault); 128 KiB was enough for each (the default is 8 MiB). Checked once,
// at the start: the machine's limit, said in one line, exit 4.
#pragma once

#include <cstdint>
#include <string>

namespace memrel {

inline constexpr std::uint64_t kLeastStackBytes = std::uint64_t{128} << 10;

// "" when the soft stack limit is unlimited or at least kLeastStackBytes, else the line that
// says it is not.
std::string stack_limit_problem();

}  // namespace memrel
