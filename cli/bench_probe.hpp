#pragma once

#include <string>

namespace memrel::cli {

// Runs `BENCH --help` (10 s at most, stdin and stderr closed). Returns "" when it answered as
// every memrel_bench has since the first one (its help begins "Usage: memrel_bench"), else one
// line saying what it is instead.
std::string bench_program_problem(const std::string& bench);

// Whether BENCH can match FILTER (--benchmark_filter, a regular expression) against its benchmarks'
// names in time: it lists them for the null backend (10 s at most). "" when it ended; else one
// line (also when the listing died of a signal and the same listing without the filter does
// not): a filter that backtracks without end (`((a*)*)*$`) held memrel_bench in its matcher until
// the backend's timeout, recorded as the backend's failure (bench, exit 3 after 30 minutes) or
// for ever (ab: the twenty-eighth adversarial pass, c8-filter-regex-hang).
std::string bench_filter_problem(const std::string& bench, const std::string& filter);

// "--filter 'FILTER'" for a message, a filter past 80 characters cut there and its length said:
// one line stays readable.
std::string filter_option_text(const std::string& filter);

}  // namespace memrel::cli
