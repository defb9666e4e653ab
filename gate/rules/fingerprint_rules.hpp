// Which machine a latency comes from decides whether it may gate (docs/gate.md, "Machine
// fingerprints"). Bytes are the same on every machine of one GPU model, so they gate against any
// baseline of that model; latencies move between machines of one model (lent H200s differed by
// 1.6x on a warm pool allocation), so they gate only against a baseline from the same machine
// (equal machine fields of the fingerprint; memrel's commit and torch's version may differ: that
// is the change being judged), or between the interleaved halves of one `memrel ab` run.
// Otherwise they are reported with their change and p-value as info, never as a regression.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gate/verdict.hpp"
#include "platform/machine_fingerprint.hpp"

namespace memrel {

struct LatencyStanding {
  bool may_gate = false;
  std::string why_not;     // when !may_gate: for the rows, e.g. "baseline from another machine"
  std::optional<Row> row;  // the fingerprint row to show above the file's rows, if any
};

// `interleaved`: both sides come from one `memrel ab` run, alternating on one machine.
LatencyStanding latency_standing(const std::optional<MachineFingerprint>& baseline,
                                 const std::optional<MachineFingerprint>& current,
                                 bool interleaved);

}  // namespace memrel
