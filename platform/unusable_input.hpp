// An input memrel cannot use (a backend name, a setting, a grid file): an invalid_argument, so the
// command line exits 2 for it, whose message has every NUL escaped as \u0000 (nul_escaped.hpp
// says why): the one class for such refusals, where each throw site escaped its message itself.
#pragma once

#include <stdexcept>
#include <string>

#include "platform/nul_escaped.hpp"

namespace memrel {

class UnusableInput : public std::invalid_argument {
 public:
  explicit UnusableInput(const std::string& what) : std::invalid_argument(nul_escaped(what)) {}
};

}  // namespace memrel
