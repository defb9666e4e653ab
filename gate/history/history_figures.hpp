// The figures of one results or benchmark file as the history stores them: one number per
// metric, named "<subject>:<figure>" as the gate names them ("pair/host-malloc/warm/4096:
// real_time_ns", "host-malloc/fragmentation:peak_reserved").
#pragma once

#include <map>
#include <string>

#include "gate/read/input_file.hpp"

namespace memrel {

// Benchmarks: each one's latency (real_time_ns, the reading rule's figure) and byte counters;
// skipped ones have none. Results: every number in each ok cell's metrics
// (median_latency_ns.<op> for the per-operation latencies); a failed cell's figures stop at the
// failure and are left out.
std::map<std::string, double> history_figures(const InputFile& file);

// "" when the figures' names are of the backend the file says it measured; else why the history
// must not take it: it files figures by name, and `memrel ab --candidate-backend` names the
// candidate's benchmarks after the reference's backend (to pair them), so its candidate file
// added to a history filed one backend's figures in another's series (the forty-fifth
// adversarial pass, c6-ab-candidate-file-renamed-backend-into-history). A memrel_bench file's
// names are FAMILY/BACKEND/..., its context's memrel_backend the backend that ran.
std::string history_naming_problem(const InputFile& file);

}  // namespace memrel
