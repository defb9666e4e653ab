// Where and with what a run happened, so that two results files can be compared honestly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace memrel {

std::string utc_now_iso8601();

// time, host, kernel, CPU, git commit, memrel version, GPU and driver (through NVML, without a
// CUDA context), CUDA runtime version.
nlohmann::json run_context();

}  // namespace memrel
