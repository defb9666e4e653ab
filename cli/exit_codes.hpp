// One set of exit codes for every memrel tool, printed in --help (kExitCodesHelp).
#pragma once

namespace memrel::exit_code {

constexpr int kSuccess = 0;
constexpr int kRegression = 1;     // compare: a regression, or something went missing
constexpr int kUnusableInput = 2;  // a bad file or option; one line names it; nothing written
constexpr int kCellFailed = 3;     // run: the suite ran, but a cell crashed, timed out or failed
constexpr int kInternalError = 4;  // memrel itself could not do it

constexpr const char* kExitCodesHelp =
    "Exit codes: 0 success; 1 regression found (compare); 2 unusable input (bad workload, results "
    "or baseline file, unknown backend or workload, bad option); 3 the suite ran but a cell "
    "crashed, timed out or failed; 4 internal error.";

}  // namespace memrel::exit_code
