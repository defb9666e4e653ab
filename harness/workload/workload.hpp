// Workloads are data: a JSON file holding a list of steps. This file parses and fully validates
// one, so that a bad file fails before any cell starts, with an error that names the file and
// the step.
//
// Format (schema "memrel.workload/1"), documented with examples in docs/workloads.md:
//   {"schema": "memrel.workload/1", "name": "single-large", "description": "...",
//    "steps": [
//      {"alloc": "x", "shape": [120, 3, 512, 512], "dtype": "float32"},
//      {"alloc": "y", "bytes": 4096},
//      {"alloc": "z", "device_fraction": 0.25},
//      {"alloc_many": "frag", "sizes": [67108864, 2097152], "until_device_fraction": 0.25},
//      {"free": "x"}, {"free_many": "frag", "every": 2, "offset": 0},
//      {"release": true}, {"mark": "after-free-release"}, {"sleep_ms": 10},
//      {"repeat": 100, "steps": [ ... ]},
//      {"program": "linear-stack", "args": {"mode": "no_grad"}}]}   (framework backends only)
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace memrel {

// "FILE: LOCATION: MESSAGE", one line.
class WorkloadError : public std::runtime_error {
 public:
  WorkloadError(const std::string& source, const std::string& location, const std::string& message);
};

// Sizes above this are refused as impossible rather than attempted: no device or host that
// memrel targets has 256 TiB, and larger values are almost always a unit mistake.
constexpr std::uint64_t kMaxRequestBytes = std::uint64_t{1} << 48;

// The cap on a workload file (docs/inputs.md). The shipped ones are under 1 KiB, and `repeat`
// writes a long workload in a few lines; 4 MiB holds about 100,000 explicit steps, and parsing
// it takes about 100 MiB of memory.
constexpr std::uint64_t kMaxWorkloadFileBytes = std::uint64_t{4} << 20;

enum class StepKind { kAlloc, kAllocMany, kFree, kFreeMany, kRelease, kMark, kSleep, kProgram };

const char* step_kind_name(StepKind kind);

struct Step {
  StepKind kind = StepKind::kMark;
  std::string location;  // "steps[3]" or "steps[2].steps[0] (repetition 7)"
  std::string id;        // alloc/free: the block; alloc_many/free_many: the group
  // alloc: exactly one of bytes or device_fraction is set.
  std::uint64_t bytes = 0;
  double device_fraction = 0;
  // alloc_many: sizes cycled until the group holds until_device_fraction of capacity.
  std::vector<std::uint64_t> sizes;
  double until_device_fraction = 0;
  // free_many: frees members whose index i satisfies i % every == offset.
  std::uint64_t every = 1, offset = 0;
  std::string label;  // mark
  std::uint64_t sleep_ms = 0;
  std::string program;    // program: its name, run by the backend (framework backends only)
  std::string args_json;  // program: its arguments, a JSON object
};

struct Trace;  // harness/workload/trace_file.hpp

struct Workload {
  std::string name;
  std::string description;
  std::string source;       // file path, or a name for in-memory text
  std::vector<Step> steps;  // repeats already expanded
  // A real program's trace (a *.memtrace file, docs/traces.md) instead of steps: the cell
  // replays its events.
  std::shared_ptr<const Trace> trace;
};

Workload parse_workload_text(const std::string& text, const std::string& source);
// A workload file, or a trace when the path ends in .memtrace (loaded and checked in full).
Workload parse_workload_file(const std::string& path);

// One allocation or free the cell performs, with sizes resolved against a capacity (device
// memory for device backends, --host-capacity for host backends).
struct ConcreteStep {
  StepKind kind;  // kAlloc, kFree, kRelease, kMark, kSleep, kProgram only
  std::string location;
  std::string id;
  std::uint64_t bytes = 0;
  std::string label;
  std::uint64_t sleep_ms = 0;
  std::string program, args_json;
};

// Throws WorkloadError when a fraction resolves to zero bytes or above kMaxRequestBytes.
// max_group_members caps each alloc_many group (validation uses a small cap: the id checks need
// the pattern, not the count).
std::vector<ConcreteStep> resolve_steps(const Workload& workload, std::uint64_t capacity_bytes,
                                        std::uint64_t max_group_members = UINT64_MAX);

// The most steps a workload expands to (repeats, alloc_many groups): keeps a typo such as
// "repeat": 1e9 from expanding into a file no cell could finish.
constexpr std::uint64_t kMaxExpandedSteps = 1'000'000;

// Throws what resolve_steps(workload, capacity_bytes) would throw, without building the steps:
// what a run checks before its first cell, where it knows the capacity (--host-capacity).
void check_resolvable(const Workload& workload, std::uint64_t capacity_bytes);

}  // namespace memrel
