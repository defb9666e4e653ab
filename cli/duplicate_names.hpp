// The names of a run's matrix (backends, workloads) are its cells' keys: two of one name, or two
// whose report pages would be one, make results that compare, report and history refuse.
#pragma once

#include <string>
#include <vector>

namespace memrel::cli {

// Throws std::invalid_argument, naming both sources (sources[i] names names[i]; a name without
// one is its own source), for a name twice or two names sharing a report page; `what` begins
// the line ("-w: the workload"). docs/inputs.md, "Duplicates".
void refuse_duplicates(const std::vector<std::string>& names,
                       const std::vector<std::string>& sources, const std::string& what);

}  // namespace memrel::cli
