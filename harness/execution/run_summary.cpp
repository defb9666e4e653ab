#include "harness/execution/run_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "platform/one_line_text.hpp"

namespace memrel {
namespace {

// Statuses in the order a reader scans them: what ran first, then what did not.
const std::vector<std::string>& status_order() {
  static const std::vector<std::string> order = {"ok",      "oom",   "crashed",
                                                 "timeout", "error", "unavailable"};
  return order;
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::string join_some(const std::vector<std::string>& items, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > most) out += " and " + std::to_string(items.size() - most) + " more";
  return out;
}

std::string seconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(ns) / 1e9);
  return text;
}

std::string status_counts(const std::vector<CellResult>& cells) {
  std::map<std::string, std::size_t> counts;
  for (const auto& c : cells) ++counts[c.status];
  std::string out;
  for (const auto& status : status_order()) {
    auto it = counts.find(status);
    if (it == counts.end()) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + status;
    counts.erase(it);
  }
  for (const auto& [status, n] : counts)
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  return out;
}

// The sums time_split prints.
struct TimeSplit {
  std::size_t cells = 0, zygote = 0, exec = 0;
  std::uint64_t wall = 0, spawn = 0, library_load = 0, context = 0, backend_init = 0, work = 0,
                probes = 0;
  // Within the rest: exits once the result was in, those of them beside the next cell's start,
  // and the next cells' waits for them.
  std::uint64_t exit = 0, exit_overlapped = 0, previous_exit_wait = 0;
};

}  // namespace

bool cell_worth_a_line(const CellResult& cell, double slow_s) {
  if (cell.status == "unavailable") return false;
  if (cell.status != "ok") return true;
  return static_cast<double>(cell.wall_ns) / 1e9 > slow_s;
}

std::string cell_line(const CellResult& cell, std::size_t index, std::size_t total) {
  char line[256];
  std::snprintf(line, sizeof line, "[%zu/%zu] %-20s %-22s %-9s %8s", index, total,
                cell.backend.c_str(), cell.workload.c_str(), cell.status.c_str(),
                seconds(cell.wall_ns).c_str());
  std::string out = line;
  // Every cell has a line with -v or on a terminal: "(slow)" only for those that are.
  if (cell.status == "ok") return cell_worth_a_line(cell) ? out + "  (slow)" : out;
  // A reason holds the cell's stderr: escaped, as any text from outside reaching a terminal (a
  // crashing allocator's ESC ]0; retitled it, ESC [2J cleared it: the seventeenth adversarial
  // pass, c9-run-cell-stderr-esc-to-terminal).
  if (!cell.reason.empty()) out += "  " + one_line_text(cell.reason.substr(0, 160));
  return out;
}

std::string backend_line(const std::vector<CellResult>& cells) {
  if (cells.empty()) return "";
  bool any_ran = std::any_of(cells.begin(), cells.end(),
                             [](const CellResult& c) { return c.status != "unavailable"; });
  if (!any_ran) return "";
  std::uint64_t wall = 0;
  for (const auto& c : cells) wall += c.wall_ns;
  return cells.front().backend + ": " + std::to_string(cells.size()) + " cell" +
         (cells.size() == 1 ? "" : "s") + ": " + status_counts(cells) + " (" + seconds(wall) + ")";
}

std::vector<ReasonGroup> group_unavailable(const std::vector<CellResult>& cells) {
  std::vector<ReasonGroup> groups;
  for (const auto& c : cells) {
    if (c.status != "unavailable") continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const ReasonGroup& g) {
      return g.status == c.status && g.reason == c.reason;
    });
    if (it == groups.end()) {
      groups.push_back({c.status, c.reason, {}, {}, 0});
      it = groups.end() - 1;
    }
    add_unique(it->backends, c.backend);
    add_unique(it->workloads, c.workload);
    ++it->cells;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const ReasonGroup& a, const ReasonGroup& b) { return a.cells > b.cells; });
  return groups;
}

std::string format_group(const ReasonGroup& group) {
  std::string reason =
      group.reason.empty() ? "(no reason given)" : one_line_text(group.reason.substr(0, 200));
  std::string where = group.workloads.size() == 1
                          ? group.workloads.front()
                          : std::to_string(group.workloads.size()) + " workloads";
  return std::to_string(group.cells) + " cell" + (group.cells == 1 ? "" : "s") + " " +
         group.status + " (" + join_some(group.backends, 4) + " x " + where + "): " + reason;
}

std::string run_summary(const std::vector<CellResult>& cells) {
  std::ostringstream out;
  for (const auto& group : group_unavailable(cells)) out << format_group(group) << "\n";
  // One row per backend that ran any cell: how many cells of each status, and the time they took.
  // Backends that ran none are in the groups above.
  std::vector<std::string> backends, ran;
  for (const auto& c : cells) add_unique(backends, c.backend);
  for (const auto& c : cells)
    if (c.status != "unavailable") add_unique(ran, c.backend);
  const std::size_t not_run = backends.size() - ran.size();
  backends = ran;
  std::size_t width = 7;
  for (const auto& b : backends) width = std::max(width, b.size());
  std::vector<std::string> columns;
  for (const auto& status : status_order()) {
    if (std::any_of(cells.begin(), cells.end(),
                    [&](const CellResult& c) { return c.status == status; }))
      columns.push_back(status);
  }
  char cell[64];
  std::snprintf(cell, sizeof cell, "%-*s", static_cast<int>(width), "backend");
  out << cell;
  for (const auto& s : columns) {
    std::snprintf(cell, sizeof cell, " %11s", s.c_str());
    out << cell;
  }
  out << "        time\n";
  for (const auto& b : backends) {
    std::snprintf(cell, sizeof cell, "%-*s", static_cast<int>(width), b.c_str());
    out << cell;
    std::uint64_t wall = 0;
    for (const auto& s : columns) {
      std::size_t n = 0;
      for (const auto& c : cells) n += (c.backend == b && c.status == s);
      std::snprintf(cell, sizeof cell, " %11s", n ? std::to_string(n).c_str() : "-");
      out << cell;
    }
    for (const auto& c : cells) wall += (c.backend == b) ? c.wall_ns : 0;
    std::snprintf(cell, sizeof cell, " %11s", seconds(wall).c_str());
    out << cell << "\n";
  }
  out << cells.size() << " cells: " << status_counts(cells);
  if (not_run)
    out << "; " << not_run << " backend" << (not_run == 1 ? "" : "s") << " ran none (above)";
  out << "\n";
  out << time_split(cells);
  return out.str();
}

std::string time_split(const std::vector<CellResult>& cells) {
  TimeSplit t;
  std::vector<std::uint64_t> overheads, contexts;
  std::vector<double> ratios;
  for (const auto& c : cells) {
    if (!c.timing) continue;
    const CellTiming& s = *c.timing;
    ++t.cells;
    (s.started_by == "zygote" ? t.zygote : t.exec) += 1;
    t.wall += c.wall_ns;
    t.spawn += s.spawn_ns;
    t.library_load += s.library_load_ns;
    t.context += s.context_ns;
    t.backend_init += s.backend_init_ns;
    t.work += s.work_ns;
    t.probes += s.probe_ns;
    t.exit += s.exit_ns;
    t.exit_overlapped += s.exit_overlapped ? s.exit_ns : 0;
    t.previous_exit_wait += s.previous_exit_wait_ns;
    if (s.context_ns > 0 && c.status == "ok") {
      // What the cell held its slot for: an exit beside the next cell's start is not (the next
      // cell's wait for it is in that cell's wall).
      std::uint64_t slot = c.wall_ns - (s.exit_overlapped ? std::min(s.exit_ns, c.wall_ns) : 0);
      std::uint64_t overhead = slot > s.work_ns ? slot - s.work_ns : 0;
      overheads.push_back(overhead);
      contexts.push_back(s.context_ns);
      ratios.push_back(static_cast<double>(overhead) / static_cast<double>(s.context_ns));
    }
  }
  if (t.cells == 0) return "";
  std::uint64_t parts = t.spawn + t.library_load + t.context + t.backend_init + t.work + t.probes;
  std::ostringstream out;
  out << "time split of " << t.cells << " cells that ran (" << t.zygote << " from a zygote, "
      << t.exec << " by exec): spawn " << seconds(t.spawn) << ", library load "
      << seconds(t.library_load) << ", CUDA context " << seconds(t.context) << ", backend init "
      << seconds(t.backend_init) << ", work " << seconds(t.work) << ", probes " << seconds(t.probes)
      << ", rest " << seconds(t.wall > parts ? t.wall - parts : 0);
  if (t.exit > 0) {
    out << " (exits " << seconds(t.exit) << ", " << seconds(t.exit_overlapped)
        << " of them beside the next cell's start, which waited " << seconds(t.previous_exit_wait)
        << " for them)";
  }
  out << "; wall " << seconds(t.wall) << "\n";
  if (!ratios.empty()) {
    auto median = [](auto values) {
      std::sort(values.begin(), values.end());
      return values[values.size() / 2];
    };
    char line[200];
    std::snprintf(line, sizeof line,
                  "per device cell (median of %zu ok): overhead (wall - work, less an exit "
                  "beside the next cell) %.3f s, CUDA "
                  "context %.3f s, overhead / context %.2f\n",
                  ratios.size(), static_cast<double>(median(overheads)) / 1e9,
                  static_cast<double>(median(contexts)) / 1e9, median(ratios));
    out << line;
  }
  return out.str();
}

}  // namespace memrel
