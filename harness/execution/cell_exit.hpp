// How a cell process says that it ran but could not hand its result over (a full or unwritable
// TMPDIR, where the runner's result file lives): not the allocator's failure, so the runner stops
// the run instead of recording the cell as crashed, which a --resume would then keep
// (docs/inputs.md, "Failures that are not the allocator's").
#pragma once

#include <stdexcept>

namespace memrel {

// The cell's exit code for it; no other exit of `memrel cell` uses 5 (an allocator might: the
// runner believes the code only beside the line below, or where TMPDIR takes no file).
constexpr int kCellResultNotWritten = 5;
// How the cell's stderr line for it begins.
constexpr const char* kCellResultNotWrittenLine = "memrel cell: the result could not be written";

// Thrown by the runner when a cell exits with kCellResultNotWritten: the run stops (exit 4), the
// finished cells stay in the journal.
class CellResultNotWritten : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace memrel
