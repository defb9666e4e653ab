#pragma once

#include <string>

namespace memrel::cli {

// Runs `BENCH --help` (10 s at most, stdin and stderr closed). Returns "" when it answered as
// every memrel_bench has since the first one (its help begins "Usage: memrel_bench"), else one
// line saying what it is instead.
std::string bench_program_problem(const std::string& bench);

}  // namespace memrel::cli
