// The sequence a churn benchmark replays: RMM's random_allocations, drawn once, before any
// timing, so that neither the random number generator nor the bookkeeping of which block is
// live costs anything inside the timed region, and every iteration does exactly the same work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "benchmarks/measurement_rules.hpp"

namespace memrel::bench {

struct ChurnStep {
  enum class Kind : std::uint8_t { kAllocate, kFree };
  Kind kind = Kind::kAllocate;
  // kFree: which live block. Live blocks are kept in a vector, and a free moves the last one
  // into the hole (as RMM does), so an index is all the replay needs.
  std::uint32_t live_index = 0;
  std::uint64_t bytes = 0;  // kAllocate: the request; kFree: the freed block's size
};

struct ChurnPlan {
  std::vector<ChurnStep> steps;  // ends with every block freed
  std::uint64_t allocations = 0;
  std::uint64_t peak_live_bytes = 0;  // the most the sequence ever holds: the "requested" peak
  std::size_t peak_live_blocks = 0;   // lets the replay reserve its vector once, untimed
};

// Deterministic for a seed on every platform: std::mt19937_64 is fully specified, and the
// draws are reduced with `%` rather than std::uniform_int_distribution, whose algorithm differs
// between standard libraries (the bias is below 2^-38 for the ranges used here).
ChurnPlan make_churn_plan(std::uint64_t seed, const ChurnShape& shape);

}  // namespace memrel::bench
