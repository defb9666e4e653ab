// Every backend memrel could run, with whether it can run here: the compiled table, then the
// backend files of the backends folder (an invalid one with its error, as an invalid workload
// is). `memrel list` prints it, and `memrel list --available-backends` the names of the available
// ones. (`memrel bench` without -b takes the same backends, but refuses a backend file whose
// library is there and does not load, as `memrel run` does: cli/bench_command.cpp.)
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace memrel::cli {

// One object per backend: name, kind, available, reason, valid; description, release and space
// for a valid one, file for a backend file, error for an invalid one.
nlohmann::json backend_listing(const std::string& backends_dir);

// The backend names two or more files of the folder hold, with how many: each is no file's (run
// and bench refuse it, naming two; the listing lists every one invalid).
std::map<std::string, int> names_of_several_files(const std::string& backends_dir);

// The names of the valid backends that can run here, in the listing's order: compiled ones and
// the folder's files, which memrel_bench takes by name.
std::vector<std::string> available_backend_names(const std::string& backends_dir);

}  // namespace memrel::cli
