// MEMREL_INJECT_FAULT, the runner's tests' way to make a cell misbehave (the list of forms:
// harness/execution/cell.cpp, inject_fault_if_asked). Checked once, before any cell: a value of
// no form ran every cell into "error stoul", exit 3, the allocator's column (the seventeenth
// adversarial pass, c8-inject-fault-env-bad-value-cell-error).
#pragma once

#include <string>

namespace memrel {

// "" when `value` is one of the forms, else what is wrong with it.
std::string injected_fault_problem(const std::string& value);

}  // namespace memrel
