// Pinning memrel and the processes it starts to a set of CPUs (`memrel ab --cpus`).
//
// A warm device allocation is mostly a driver round trip (cudaDeviceSynchronize on an idle
// stream, ~0.5 us on the H200), whose time depends on which core makes it: a core of the GPU's
// own NUMA node or another, a core the scheduler moves the process off mid-run. Lent H200s of one
// model differed by 1.6x on a warm pool allocation (docs/gate.md), and on one machine
// `memrel ab`'s A/A rounds swung by up to 34 % process to process. Giving both sides the same
// CPUs takes that choice away from the scheduler, so it cannot land on one side more than the
// other. The affinity is inherited by every process started afterwards.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

namespace memrel {

// "3", "0-3", "0,2,8-11": the CPUs, ascending, each once. Throws std::invalid_argument naming
// `option` and the text for anything else (empty, a negative or reversed range, a CPU past the
// kernel's CPU_SETSIZE, a CPU given twice).
std::vector<int> parse_cpu_list(const std::string& text, const std::string& option);

// "0-3,8": the CPUs of `set`, as parse_cpu_list reads them.
std::string cpu_set_text(const cpu_set_t& set);

// This process (and so every child started after it) runs only on `cpus`. Throws
// std::invalid_argument naming `option` when one of them is not a CPU this process may run on
// (offline, absent, outside its cpuset), or the kernel refuses.
void pin_to_cpus(const std::vector<int>& cpus, const std::string& option);

}  // namespace memrel
