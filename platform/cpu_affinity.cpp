#include "platform/cpu_affinity.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace memrel {
namespace {

int cpu_number(const std::string& piece, const std::string& text, const std::string& option) {
  // No leading zero, as every whole number memrel reads (`00` was CPU 0: the fifty-eighth
  // adversarial pass, c4-leading-zero-trace-scale-cpus).
  const bool digits =
      !piece.empty() && piece.size() <= 6 && (piece.size() == 1 || piece[0] != '0') &&
      std::all_of(piece.begin(), piece.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int cpu = digits ? std::stoi(piece) : -1;
  if (cpu < 0 || cpu >= CPU_SETSIZE)
    throw std::invalid_argument(option + " '" + text + "': '" + piece +
                                "' is not a CPU number (0 to " + std::to_string(CPU_SETSIZE - 1) +
                                "); give a list such as 3 or 0-3,8");
  return cpu;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& text, const std::string& option) {
  std::vector<int> cpus;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t dash = item.find('-');
    const int first = cpu_number(item.substr(0, dash), text, option);
    const int last =
        dash == std::string::npos ? first : cpu_number(item.substr(dash + 1), text, option);
    if (last < first)
      throw std::invalid_argument(option + " '" + text + "': range '" + item + "' runs backwards");
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  // A CPU given twice ("0,0", "0-3,2") is a typo, not a list: the sixth pass's `--cpus 0,0` was
  // read as one CPU without a word, when two were meant.
  const auto twice = std::adjacent_find(cpus.begin(), cpus.end());
  if (twice != cpus.end())
    throw std::invalid_argument(option + " '" + text + "': CPU " + std::to_string(*twice) +
                                " is given twice");
  return cpus;
}

std::string cpu_set_text(const cpu_set_t& set) {
  std::string text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(cpu) +
            (last > cpu ? "-" + std::to_string(last) : std::string());
    cpu = last;
  }
  return text;
}

void pin_to_cpus(const std::vector<int>& cpus, const std::string& option) {
  // Every CPU given must be one this process may run on: the kernel takes a set of which one
  // is, and drops the rest without a word (`--cpus 0,5` on a 2-CPU machine ran on CPU 0 alone,
  // exit 0: the forty-first adversarial pass, c4-ab-cpus-range-past-machine-accepted).
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    for (int cpu : cpus)
      if (!CPU_ISSET(cpu, &allowed))
        throw std::invalid_argument(option + ": CPU " + std::to_string(cpu) +
                                    " is not one memrel may run on here (" + cpu_set_text(allowed) +
                                    "; see nproc, lscpu)");
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    throw std::invalid_argument(option + ": the kernel refused to run memrel on those CPUs (" +
                                std::strerror(errno) + "); see the CPUs online (nproc, lscpu)");
}

}  // namespace memrel
