// MEMREL_INJECT_FAULT, the runner's tests' way to make a cell misbehave (the list of forms:
// harness/execution/cell.cpp, inject_fault_if_asked). Checked once, before any cell: a value of
// no form ran every cell into "error stoul", exit 3, the allocator's column (the seventeenth
// adversarial pass, c8-inject-fault-env-bad-value-cell-error).
#pragma once

#include <string>

namespace memrel {

// "" when `value` is one of the forms, else what is wrong with it. With `check_files` (every
// command but a cell, which the runner starts after the check), also the files a form writes:
// hang-with-child:FILE and leave-child:FILE write a new FILE, never over an existing one (an
// input, a symbolic link, memrel's own files: written over without a word, the forty-fifth
// adversarial pass, c1-inject-fault-file-overwrites-input, c2-inject-fault-file-replaces-symlink);
// rendezvous:DIR makes its files in an existing folder, none of memrel's own.
std::string injected_fault_problem(const std::string& value, bool check_files);

}  // namespace memrel
