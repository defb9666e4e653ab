// How a cell process says that it ran but could not hand its result over (a full or unwritable
// TMPDIR, where the runner's result file lives): not the allocator's failure, so the runner stops
// the run instead of recording the cell as crashed, which a --resume would then keep
// (docs/inputs.md, "Failures that are not the allocator's").
#pragma once

#include <stdexcept>

#include "platform/machine_state_error.hpp"

namespace memrel {

// The cell's exit code for it; no other exit of `memrel cell` uses 5 (an allocator might: the
// runner believes the code only beside the line below, or where TMPDIR takes no file).
constexpr int kCellResultNotWritten = 5;
// How the cell's stderr line for it begins.
constexpr const char* kCellResultNotWrittenLine = "memrel cell: the result could not be written";

// Thrown by the runner when a cell exits with kCellResultNotWritten: the run stops (exit 4), the
// finished cells stay in the journal. The machine's state (a full TMPDIR, `ulimit -f`), said as
// such: it was "internal error: null x log: the cell ran but could not write its result" (the
// eighty-fifth adversarial pass, F10, F11).
class CellResultNotWritten : public MachineStateError {
 public:
  using MachineStateError::MachineStateError;
};

}  // namespace memrel
