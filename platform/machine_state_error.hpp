// A failure of the machine's state, not of memrel and not of its input: a full disk, a file size
// limit (`ulimit -f`), a write the kernel refused. Exit 4 as an internal error is, but said as
// what it is (`memrel: cannot write big.json: File too large`), not as memrel's own fault
// (docs/inputs.md, "Failures that are not the allocator's").
#pragma once

#include <stdexcept>
#include <string>

#include "platform/nul_escaped.hpp"

namespace memrel {

class MachineStateError : public std::runtime_error {
 public:
  explicit MachineStateError(const std::string& what) : std::runtime_error(nul_escaped(what)) {}
};

}  // namespace memrel
