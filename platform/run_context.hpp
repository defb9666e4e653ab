// Where and with what a run happened, so that two results files can be compared honestly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace memrel {

std::string utc_now_iso8601();

// Whether `text` begins with a calendar date, YYYY-MM-DD, then ends or goes on with its time ('T'
// or ' '), as a run's start time must: the history orders runs by it and makes nights of the date.
bool starts_with_a_date(const std::string& text);

// time, host, kernel, CPU, git commit, memrel version, GPU and driver (through NVML, without a
// CUDA context), CUDA runtime version.
nlohmann::json run_context();

// "" when $MEMREL_GIT_COMMIT is unset or a commit's name can be it (one line of text, at most 200
// bytes), else what is wrong: ESC and a newline in it were recorded as the run's commit (the
// seventeenth adversarial pass, c9-env-git-commit-control-chars).
std::string given_commit_problem();

}  // namespace memrel
