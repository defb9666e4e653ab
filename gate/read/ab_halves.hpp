// Whether two Google Benchmark files are the two halves of one `memrel ab` run: the reference's
// and the candidate's merged rounds (gate/read/interleaved_rounds.hpp), which `memrel compare
// DIR/reference DIR/candidate` may meet again after the run. Only then was round r of one side
// measured back to back with round r of the other, so only then may the gate pair rounds and
// gate latency as `memrel ab` does (docs/gate.md, "Separate runs").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace memrel {

// Both contexts carry "memrel_ab" (a JSON object as a string), one with role "reference" and
// the other "candidate", with the same run id and the same number of rounds. Files written
// before ab recorded its run id have none, and are taken as halves on the roles and rounds.
bool ab_halves(const nlohmann::json& baseline_context, const nlohmann::json& current_context);

// The alpha of the look at which an ab run with further looks (`--looks`) stopped
// (gate/rules/alpha_spending.hpp), from the reference's context: compared again, its halves are
// tested at that alpha, not the full one, or the looks would have been for nothing. None for a
// run of one look, or a file without one.
std::optional<double> ab_look_alpha(const nlohmann::json& reference_context);

}  // namespace memrel
