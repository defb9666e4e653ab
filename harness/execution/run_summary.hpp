// What `memrel run` says on the terminal. A suite of 16 backends on 12 workloads is about 200
// cells, most of which finish ok or cannot run on this machine for one shared reason; a line per
// cell buries the few worth reading. So: a line for a cell only when it ran and did not finish
// ok, or was slow; a line per backend as its cells are done; at the end, the cells that could
// not run here once per reason, and a table of statuses per backend.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "harness/results/results.hpp"

namespace memrel {

// A cell that took longer than this gets a line even when it finished ok.
inline constexpr double kSlowCellSeconds = 60.0;

// Whether a finished cell is worth a line of its own: oom, crashed, timeout, error, or slow.
// Unavailable cells are not: they are said once per reason at the end.
bool cell_worth_a_line(const CellResult& cell, double slow_s = kSlowCellSeconds);

// "[12/192] rmm-arena  huge  oom  1.20 s  steps[0]: out of memory ..." (reason cut to 160).
std::string cell_line(const CellResult& cell, std::size_t index, std::size_t total);

// "cuda-malloc: 12 cells: 11 ok, 1 oom (3.40 s)"; empty when none of them ran (all unavailable).
std::string backend_line(const std::vector<CellResult>& cells_of_backend);

// Cells that did not run (status unavailable) grouped by reason, largest group first.
struct ReasonGroup {
  std::string status;
  std::string reason;
  std::vector<std::string> backends;   // in order of first appearance
  std::vector<std::string> workloads;  // in order of first appearance
  std::size_t cells = 0;
};
std::vector<ReasonGroup> group_unavailable(const std::vector<CellResult>& cells);

// "84 cells unavailable (cuda-malloc, cuda-async, ... x 12 workloads): no CUDA device: ...".
std::string format_group(const ReasonGroup& group);

// Where the cells' time went (CellTiming), summed over the cells that ran:
// "time split of 60 cells that ran (60 from a zygote, 0 by exec): spawn 0.40 s, library load ...";
// and, over the device cells that finished ok, the median overhead (wall - work), the median CUDA
// context creation and the median of their ratio (issue 25's figure). Empty when no cell has a
// timing (results of older builds).
std::string time_split(const std::vector<CellResult>& cells);

// The closing lines: the groups, then one row per backend (cells per status, wall time).
std::string run_summary(const std::vector<CellResult>& cells);

}  // namespace memrel
