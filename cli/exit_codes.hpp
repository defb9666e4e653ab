// One set of exit codes for every memrel tool, printed in --help (kExitCodesHelp).
#pragma once

namespace memrel::exit_code {

constexpr int kSuccess = 0;
constexpr int kRegression = 1;     // compare: a regression, or something went missing
constexpr int kUnusableInput = 2;  // a bad file or option; one line names it; nothing written
constexpr int kCellFailed = 3;     // run: the suite ran, but a cell crashed, timed out or failed
constexpr int kInternalError = 4;  // memrel itself could not do it
// run: ended by SIGINT or SIGTERM, as a shell reports it: 130 (SIGINT), 143 (SIGTERM). The
// running cells were ended, the finished ones are in the journal (`memrel run --resume`).
constexpr int kInterruptedBase = 128;

constexpr const char* kExitCodesHelp =
    "Exit codes: 0 success; 1 regression found (compare); 2 unusable input (bad workload, results "
    "or baseline file, unknown backend or workload, bad option); 3 the suite ran but a cell "
    "crashed, timed out or failed; 4 internal error; 130 or 143 run interrupted by SIGINT or "
    "SIGTERM (finished cells kept in the journal: run again with --resume).";

}  // namespace memrel::exit_code
