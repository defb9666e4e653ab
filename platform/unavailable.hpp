// Something this machine lacks: a CUDA device, a driver library, a plugin.
//
// Kept apart from failures on purpose: a suite run on a CPU machine must record "cannot run
// here, because ..." for every device cell, not count them as crashes. Every layer above throws
// this (or a subclass) for that case and catches it to say so.
#pragma once

#include <stdexcept>

namespace memrel {

class Unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace memrel
