// The names of a run's matrix (backends, workloads) are its cells' keys: two of one name, or two
// whose report pages would be one, make results that compare, report and history refuse.
#pragma once

#include <string>
#include <vector>

namespace memrel::cli {

// Throws std::invalid_argument, naming both sources (sources[i] names names[i]; a name without
// one is its own source), for a name twice or two names sharing a report page; `what` begins
// the line ("-w: the workload"); how_to_rename, where given, ends it in brackets ("a trace:
// trace import --name": words of workloads that the backends' line once said too, the
// fifty-seventh adversarial pass, c6-config-same-canonical). docs/inputs.md, "Duplicates".
void refuse_duplicates(const std::vector<std::string>& names,
                       const std::vector<std::string>& sources, const std::string& what,
                       const std::string& how_to_rename);

// The words of a workload's renaming: a JSON workload's "name", a trace's by trace import.
inline constexpr const char* kRenameWorkload =
    "a workload file: its \"name\"; a trace: trace import --name";
// A backend's: a backend file's "name"; two spellings of one setting are one backend.
inline constexpr const char* kRenameBackend =
    "a backend file: its \"name\"; settings spelled two ways are one backend: give it once";

}  // namespace memrel::cli
