// Group-sequential looks for `memrel ab --looks` (docs/ab.md, "More rounds when undecided"):
// how much of the false-alarm rate each look at the rounds may spend.
//
// ab looks at its rounds after every --rounds of them and stops at the first look where nothing
// is left undecided; a family that moved but was not yet significant gets more rounds, up to
// --looks times --rounds. Testing every look at the full alpha would raise the false alarms with
// every look (a noise swing gets several chances to cross). Lan and DeMets' alpha-spending function
// of the Pocock type, alpha * ln(1 + (e - 1) * t) at the share t of the most rounds run so far,
// says how much alpha has been spent by each look; a look tests at the increment. The sum of the
// increments is alpha, so by the union bound the chance of a false alarm at any look is at most
// alpha whatever rule decides to go on; the test ignores that the looks share rounds, which only
// makes it conservative. Pocock's shape rather than O'Brien-Fleming's: O'Brien-Fleming spends
// almost nothing early (0.0007 of 0.05 at a third of the rounds), below the signed-rank test's
// smallest p at 10 rounds (0.002), so a large regression could never stop the run early.
#pragma once

#include <cstddef>
#include <vector>

namespace memrel {

// Alpha spent by the share `information` (0..1) of the most rounds: Pocock-type Lan-DeMets.
double pocock_spent_alpha(double alpha, double information);

// The alpha each look tests at, looks after every `step` rounds up to `most` (the last look
// may be shorter): the increments of pocock_spent_alpha. One look (most <= step): {alpha}.
std::vector<double> look_alphas(double alpha, std::size_t step, std::size_t most);

// The rounds at each look: step, 2 step, ..., most.
std::vector<std::size_t> look_rounds(std::size_t step, std::size_t most);

}  // namespace memrel
