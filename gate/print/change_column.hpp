// The change column of the gate's text tables (Markdown, the summary, JUnit): a row's change,
// its rank test's p-value and the reason for its verdict in one cell, "+31.0%, p=0.0079; not
// gated (...)". The JSON printer keeps the three apart.
#pragma once

#include <string>

#include "gate/verdict.hpp"

namespace memrel {

std::string change_column(const Row& row);

}  // namespace memrel
