// An errno said for a person: strerror, and for EMFILE the limit that was reached and what to do.
#pragma once

#include <string>

namespace memrel {

// strerror(err); for EMFILE with " (the open-files limit, ulimit -n, is N: raise it)": "cannot
// make a pipe: Too many open files", "(TMPDIR: Too many open files)" and "memrel's installation
// is incomplete" named neither the limit nor what to do (the forty-ninth adversarial pass,
// c9-run-emfile-internal-error, c9-list-emfile-probe-stdout).
std::string error_text(int err);

}  // namespace memrel
