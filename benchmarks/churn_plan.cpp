#include "benchmarks/churn_plan.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace memrel::bench {

ChurnPlan make_churn_plan(std::uint64_t seed, const ChurnShape& shape) {
  if (shape.allocations == 0 || shape.max_block_bytes == 0) {
    throw std::invalid_argument("churn needs at least one allocation of at least one byte");
  }
  std::mt19937_64 random(seed);
  ChurnPlan plan;
  std::vector<std::uint64_t> live;  // sizes, mirroring the replay's vector of blocks
  std::uint64_t live_bytes = 0;

  auto free_at = [&](std::size_t index) {
    plan.steps.push_back({ChurnStep::Kind::kFree, static_cast<std::uint32_t>(index), live[index]});
    live_bytes -= live[index];
    live[index] = live.back();
    live.pop_back();
  };

  // The order of the draws is RMM's: a size every step, the coin only when something is live
  // (with nothing live the step must allocate), the victim only for a free.
  for (std::uint64_t step = 0; step < 2 * shape.allocations; ++step) {
    const std::uint64_t bytes = 1 + random() % shape.max_block_bytes;
    bool allocate = true;
    if (!live.empty()) {
      allocate = random() % 100 < kChurnAllocationPercent && plan.allocations < shape.allocations &&
                 live_bytes + bytes <= shape.max_live_bytes;
    }
    if (allocate) {
      plan.steps.push_back({ChurnStep::Kind::kAllocate, 0, bytes});
      live.push_back(bytes);
      live_bytes += bytes;
      ++plan.allocations;
      plan.peak_live_bytes = std::max(plan.peak_live_bytes, live_bytes);
      plan.peak_live_blocks = std::max(plan.peak_live_blocks, live.size());
    } else {
      free_at(random() % live.size());
    }
  }
  // RMM's sequence usually ends empty; when the live cap cut allocations short it may not. The
  // rest is freed inside the sequence, so each iteration leaves the allocator as it found it.
  while (!live.empty()) free_at(live.size() - 1);
  return plan;
}

}  // namespace memrel::bench
