// Is $MEMREL_PYTHON a Python interpreter? Asked before memrel runs one of its Python parts, so
// that a wrong setting is said as such instead of passing for the part's own result: /bin/true
// would exit 0 with nothing written, /bin/false exit 1, which means "regression" (docs/inputs.md,
// "Failures that are not the allocator's").
#pragma once

#include <string>

namespace memrel::cli {

// The oldest Python 3 whose standard library memrel's Python parts use (str.removeprefix, 3.9).
inline constexpr int kMinimumPythonMinor = 9;

// Runs `PYTHON -I -c <print its version>` (10 s at most, stdin and stderr closed). Returns "" when
// it answered as Python 3.9 or later does, else one line saying what it is instead.
std::string python_interpreter_problem(const std::string& python);

}  // namespace memrel::cli
