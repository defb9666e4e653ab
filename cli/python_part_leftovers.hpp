// What a Python part leaves behind when it dies before its own cleanup runs (a SIGSEGV in a
// library, a SIGKILL to the part alone, the grace memrel gives a stop run out): the part names
// each temporary file or folder it makes on MEMREL_ENTRY_FD as it makes it ("memrel_entry.py
// leaves HEX", scripts/memrel_outputs/last_word.py), and memrel removes those still there once
// the part has ended without its last word. A report's half-drawn DIR.tmp-PID stayed until the
// next report into DIR (the thirtieth adversarial pass, c8-report-child-segv-leaves-tmp).
#pragma once

#include <string>
#include <vector>

namespace memrel::cli {

// The marker a report's temporary folder holds from its first moment to its last
// (scripts/memrel_report/folder.py, PARTIAL): a folder without it is not a half-written report.
inline constexpr const char* kReportPartialMarker = ".memrel-report-partial";

// The paths the part named, in its order, from what it wrote on MEMREL_ENTRY_FD. A line whose
// path is not well-formed hex of an absolute path is no announcement (ignored).
std::vector<std::string> announced_leftovers(const std::string& said);

// Removes each announced path that is still the part's: a folder (not a link) holding
// kReportPartialMarker, removed whole without following links inside it, or a regular file.
// Anything else there now (a link, a folder the report finished, a user's file put there since)
// is left. Returns the paths removed. Call only once the part and its group have ended: a part
// that ended on its own removed what it could (not without file descriptors to do it with).
std::vector<std::string> remove_leftovers(const std::string& said);

}  // namespace memrel::cli
