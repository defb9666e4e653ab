// Numbers as written on a command line, compared exactly: a double rounds
// 0.50000000000000000001 onto 0.5, and a range check of the double took a value past its bound
// (the seventy-eighth adversarial pass, c4-threshold-past-bound-rounds-in). Sizes are read
// exactly too (platform/byte_size.cpp).
#pragma once

#include <string>

namespace memrel {

// Whether TEXT is a decimal number as memrel spells one:
// -?([0-9]+.?[0-9]*|.[0-9]+)([eE][-+]?[0-9]+)? (cli/number_spelling.cpp's pattern).
bool is_decimal_text(const std::string& text);

// -1, 0 or 1 as the number A is written less than, equal to or more than B, exactly, however many
// digits either has. Both are decimal text (is_decimal_text). An exponent is read up to 2^40 in
// size: two numbers past 10^(2^40) (or below its inverse) may compare equal, each past every
// bound memrel has.
int compare_decimal_text(const std::string& a, const std::string& b);

// The shortest decimal text that reads back as VALUE ("0.5", "1e-09"): a bound to compare with.
std::string shortest_decimal_text(double value);

// Whether the decimal TEXT lies from LO to HI as written (above LO, not at it, where LO_OPEN):
// one range check for every number memrel reads against bounds it states.
bool decimal_text_within(const std::string& text, double lo, double hi, bool lo_open = false);

}  // namespace memrel
