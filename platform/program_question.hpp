// A short question to another program before memrel relies on it: is $MEMREL_PYTHON a Python 3
// (cli/python_probe), is --bench a memrel_bench (cli/bench_probe)? Run it with stdin closed,
// give it a few seconds, read what it printed and what it complained of: a program that hangs or
// is something else is then said as such, where its exit code would have passed for memrel's
// own.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace memrel {

struct ProgramAnswer {
  std::string start_error;  // not empty: it could not be started, and why
  bool ended = false;       // it ended within the limit (else its group was killed)
  int status = 0;           // its wait status
  std::string printed;      // its standard output
  std::string complained;   // its standard error (the dynamic loader's line when it cannot start)
  int interrupted = 0;      // the request to stop (platform/interrupt) that ended the wait, or 0
};

// Runs `args` (args[0] looked up on PATH's absolute entries when `search_path`) in a process group
// of its own and waits for it at most `limit`, or until a request to stop arrives while an
// InterruptRequests is in force: a hung program asked during a check held a SIGTERM for the whole
// limit, then memrel said "did not answer" with the wrong exit code (the sixteenth adversarial
// pass, c8-sig*-probe-*).
// `removed_environment_prefixes`: variables of ours it does not get; `environment`: settings added
// to ours (ChildSpec).
ProgramAnswer ask_program(const std::vector<std::string>& args, bool search_path,
                          std::chrono::seconds limit,
                          const std::vector<std::string>& removed_environment_prefixes = {},
                          const std::map<std::string, std::string>& environment = {});

// How a program with wait status `status` ended: "exited N" or "died of signal N".
std::string how_it_ended(int status);

}  // namespace memrel
