// One address layout for every process memrel starts (`memrel ab --no-aslr`), as `setarch -R`.
//
// With address-space layout randomisation each process places its stack, heap, shared libraries
// and mappings at new addresses, and an operation of tens to hundreds of nanoseconds takes
// a different time in each layout (cache sets, alignment; Mytkowicz et al., "Producing wrong data
// without doing anything obviously wrong!", ASPLOS 2009). For `memrel ab` that is a noise of each
// process that pairing the rounds cannot remove: on the 2-core VM, A/A family rounds of the host
// example differed by 0.13-0.43 (log) with randomisation and by 0.07-0.18 without (docs/ab.md).
// The price: every process has the same layout, so a layout that happens to favour one build
// favours it in every round instead of averaging out.
#pragma once

#include <string>

namespace memrel {

// This process, and every process it starts afterwards (the setting survives fork and exec),
// without address-space randomisation. Throws std::invalid_argument naming `option` when the
// kernel refuses (a seccomp profile that forbids personality()).
void disable_address_randomization(const std::string& option);

}  // namespace memrel
