// SIGINT, SIGTERM and SIGHUP held back (blocked) while a file is made under a temporary name and
// renamed into place: by default each ends the process at once, and the temporary file stayed
// for good (`compare --markdown`, `merge -o`, `cell --out`, a new history database: the
// twenty-first adversarial pass, c9-sig*-compare-*-tmp, c9-sig*-histadd-new). Held, a signal
// that came meanwhile is delivered when the block ends: the file is whole or absent by then.
#pragma once

#include <signal.h>

namespace memrel {

class StopSignalsHeld {
 public:
  StopSignalsHeld();
  ~StopSignalsHeld();
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

 private:
  sigset_t before_;
};

}  // namespace memrel
