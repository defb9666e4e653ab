// `memrel validate FILE...`: parses workload files (and loads traces, *.memtrace, and imports
// snapshots and RMM logs, as run does) without running them; each error is one line naming the
// file and the step (or the trace's record).
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cli/duplicate_names.hpp"
#include "cli/exit_codes.hpp"
#include "cli/subcommand.hpp"
#include "cli/trace_import.hpp"
#include "harness/workload/workload.hpp"
#include "platform/input_rules.hpp"
#include "platform/one_line_text.hpp"

namespace memrel::cli {
namespace {

// The most capacity (device memory, or --host-capacity) under which the workload's alloc_many
// groups stay within run's step limit, when it has groups and that is below 64 TiB (more than
// any device's memory or a host's today); run refuses it past that. validate knows no device, so it
// says where the edge is (the forty-eighth adversarial pass,
// c4-validate-passes-run-refuses-alloc-many: "ok", and run refused it at the default 1 GiB of a
// host backend).
std::optional<std::uint64_t> largest_capacity_within_the_step_limit(const Workload& w) {
  const bool grows = std::any_of(w.steps.begin(), w.steps.end(),
                                 [](const Step& s) { return s.kind == StepKind::kAllocMany; });
  if (!grows) return std::nullopt;
  // Expanding too far only ever starts at a larger capacity (a group takes more blocks), so
  // the edge is found by halving; other rules (a fraction that resolves to 0 bytes at a small
  // capacity) are not this one and count as within it.
  auto within = [&](std::uint64_t capacity) {
    try {
      check_resolvable(w, capacity);
      return true;
    } catch (const WorkloadError& e) {
      return std::string(e.what()).find("expands to more than") == std::string::npos;
    }
  };
  constexpr std::uint64_t kBeyondAnyMachine = std::uint64_t{1} << 46;
  if (within(kBeyondAnyMachine)) return std::nullopt;
  std::uint64_t good = 0,
                bad = kBeyondAnyMachine;  // within(good) holds for 0: no group takes a block
  while (bad - good > 1) {
    const std::uint64_t mid = good + (bad - good) / 2;
    (within(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace

RunSubcommand attach_validate(CLI::App& app, const GlobalOptions&) {
  auto files = std::make_shared<std::vector<std::string>>();
  app.add_option("files", *files,
                 "Workload files, traces (*.memtrace), PyTorch snapshots or RMM logs")
      ->required();
  return [files] {
    int rc = exit_code::kSuccess;
    // A snapshot or an RMM log is checked as run reads it: imported (needs_trace_import, the one
    // rule), then loaded as the trace it becomes.
    ImportedTraces imported;
    // The names of the files that are good, and those files: given together, as run -w would
    // take them, two of one name are refused as run refuses them (the forty-eighth adversarial
    // pass, c6-validate-passes-duplicate-names: each said "ok", and run refused the set).
    std::vector<std::string> names, sources;
    for (const auto& f : *files) {
      try {
        Workload w = parse_workload_file(imported.prepare(f));
        names.push_back(w.name);
        sources.push_back(f);
        if (w.trace)
          std::cout << one_line_text(f) << ": ok (trace " << one_line_text(w.name) << ": "
                    << one_line_text(w.description) << ")\n";
        else if (const auto edge = largest_capacity_within_the_step_limit(w))
          std::cout << one_line_text(f) << ": ok (" << one_line_text(w.name) << ", "
                    << w.steps.size() << " steps) up to a capacity of " << describe_cap(*edge)
                    << ": past it its alloc_many groups expand to more than " << kMaxExpandedSteps
                    << " steps, and run refuses it (a host backend's default capacity is 1 GiB)\n";
        else
          std::cout << one_line_text(f) << ": ok (" << one_line_text(w.name) << ", "
                    << w.steps.size() << " steps)\n";
      } catch (const WorkloadError& e) {
        std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
        rc = exit_code::kUnusableInput;
      } catch (const std::invalid_argument& e) {  // the importer's line
        std::cerr << "memrel: " << one_line_text(e.what()) << "\n";
        rc = exit_code::kUnusableInput;
      }
    }
    try {
      refuse_duplicates(names, sources, "the workload", kRenameWorkload);
    } catch (const std::invalid_argument& e) {
      std::cerr << "memrel: " << one_line_text(e.what()) << " (run -w would refuse them)\n";
      rc = exit_code::kUnusableInput;
    }
    return rc;
  };
}

}  // namespace memrel::cli
