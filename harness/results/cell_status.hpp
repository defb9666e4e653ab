// How a cell may end: the one list of statuses.
//
// The definition is the enum of docs/schemas/results.schema.json ($defs.status); a test holds
// this list and the report's (scripts/memrel_report/load.py, STATUSES) to it. The results reader
// refuses any other status: a status it does not know cannot say whether the cell's figures mean
// anything.
#pragma once

#include <string>
#include <vector>

namespace memrel {

// "ok", "oom", "unavailable", "crashed", "timeout", "error", in the schema's order.
const std::vector<std::string>& cell_statuses();

}  // namespace memrel
