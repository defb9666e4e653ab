// What `memrel advise` reads off a sweep of one trace over many backend configurations: each
// configuration's point (peak reserved, what it holds at the end before and after a release,
// allocator time per event), the Pareto frontier over those four (all smaller is better), the
// baseline the program was recorded under, and one recommendation. Its JSON form is
// "memrel.advise/1" (docs/schemas/advise.schema.json, docs/advise.md).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/results/results.hpp"

namespace memrel {

constexpr const char* kAdviseSchema = "memrel.advise/1";

struct FrontierPoint {
  std::string backend;  // the configuration's canonical name
  std::map<std::string, std::string> settings;
  std::string apply_line;  // what a program sets to run it
  std::string status;      // the cell's: only "ok" points can be on the frontier
  std::string reason;
  std::uint64_t peak_reserved = 0;        // bytes
  std::uint64_t held_before_release = 0;  // reserved at the end, everything freed
  std::uint64_t held_after_release = 0;   // reserved after the release at the end
  double ns_per_event = 0;                // allocator time per trace event
  bool on_frontier = false;
  // memrel's own floor (the null backend, which allocates nothing real): drawn for scale, never
  // on the frontier, a baseline or the recommendation. Recommended, it was "set: " and nothing.
  bool floor = false;
};

struct Advice {
  std::string trace, trace_name;
  std::vector<FrontierPoint> points;                 // in sweep order
  std::optional<std::size_t> baseline, recommended;  // indices into points
  std::string baseline_reason;  // how the baseline was chosen (recorded, or the default)
};

// A trace cell as a point: reserved figures from the allocator's own view where it has one,
// else the device-used delta. `apply_line` and `settings` come from the backend.
FrontierPoint frontier_point(const CellResult& cell, const std::string& apply_line);

// Marks the points no other ok point dominates (at most as large in all four figures and smaller
// in one). Points with equal figures are all kept. A floor point is neither on it nor dominates.
void mark_frontier(std::vector<FrontierPoint>& points);

// The frontier point of the lowest peak reserved; among equal peaks the least allocator time.
std::optional<std::size_t> recommend(const std::vector<FrontierPoint>& points);

nlohmann::json to_json(const Advice& advice);

// The recommendation as the terminal prints it: the line to set, the predicted peak and saving
// against the baseline, and the cost (time per event, what is held at the end).
std::string recommendation_text(const Advice& advice);

// The frontier as a table for the terminal.
std::string frontier_table(const Advice& advice);

}  // namespace memrel
