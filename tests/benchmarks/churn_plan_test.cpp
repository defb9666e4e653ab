#include "benchmarks/churn_plan.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace memrel::bench {
namespace {

constexpr ChurnShape kShape = {500, 1 << 20, 16u << 20};

// Replays a plan the way the benchmark does (a vector of live sizes, the last moved into the
// hole of a free) and checks every step against it.
void replay(const ChurnPlan& plan, const ChurnShape& shape) {
  std::vector<std::uint64_t> live;
  std::uint64_t live_bytes = 0, peak = 0, allocations = 0;
  for (const ChurnStep& s : plan.steps) {
    if (s.kind == ChurnStep::Kind::kAllocate) {
      ASSERT_GE(s.bytes, 1u);
      ASSERT_LE(s.bytes, shape.max_block_bytes);
      live.push_back(s.bytes);
      live_bytes += s.bytes;
      ++allocations;
    } else {
      ASSERT_LT(s.live_index, live.size());
      ASSERT_EQ(s.bytes, live[s.live_index]);
      live_bytes -= live[s.live_index];
      live[s.live_index] = live.back();
      live.pop_back();
    }
    ASSERT_LE(live_bytes, shape.max_live_bytes);
    peak = std::max(peak, live_bytes);
  }
  EXPECT_TRUE(live.empty()) << "a plan ends with every block freed";
  EXPECT_EQ(allocations, plan.allocations);
  EXPECT_EQ(peak, plan.peak_live_bytes);
}

TEST(ChurnPlan, EveryStepIsValidAndThePlanEndsEmpty) {
  replay(make_churn_plan(1, kShape), kShape);
  replay(make_churn_plan(2, kShape), kShape);
}

TEST(ChurnPlan, TheSameSeedGivesTheSamePlanAndAnotherSeedAnother) {
  ChurnPlan a = make_churn_plan(7, kShape), b = make_churn_plan(7, kShape);
  ChurnPlan c = make_churn_plan(8, kShape);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    ASSERT_EQ(a.steps[i].bytes, b.steps[i].bytes) << i;
    ASSERT_EQ(a.steps[i].live_index, b.steps[i].live_index) << i;
  }
  EXPECT_NE(a.peak_live_bytes, c.peak_live_bytes);
}

TEST(ChurnPlan, TheCapTurnsAllocationsIntoFrees) {
  ChurnShape tight = {500, 1 << 20, 2u << 20};
  ChurnPlan plan = make_churn_plan(3, tight);
  replay(plan, tight);
  EXPECT_LE(plan.peak_live_bytes, tight.max_live_bytes);
}

}  // namespace
}  // namespace memrel::bench
