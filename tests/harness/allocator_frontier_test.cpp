// The frontier of `memrel advise` (harness/results/allocator_frontier.hpp).
#include "harness/results/allocator_frontier.hpp"

#include <gtest/gtest.h>

namespace memrel {
namespace {

FrontierPoint point(const std::string& name, std::uint64_t peak, std::uint64_t held,
                    std::uint64_t after, double ns, const std::string& status = "ok") {
  FrontierPoint p;
  p.backend = name;
  p.status = status;
  p.peak_reserved = peak;
  p.held_before_release = held;
  p.held_after_release = after;
  p.ns_per_event = ns;
  return p;
}

TEST(AllocatorFrontier, DominatedAndFailedPointsAreOffTheFrontier) {
  std::vector<FrontierPoint> points = {
      point("base", 100, 50, 10, 5),    point("smaller", 80, 50, 10, 9),
      point("worse", 120, 60, 10, 9),   point("faster", 150, 50, 10, 1),
      point("oom", 10, 0, 0, 0, "oom"), point("twin", 80, 50, 10, 9)};
  mark_frontier(points);
  EXPECT_TRUE(points[0].on_frontier);
  EXPECT_TRUE(points[1].on_frontier);
  EXPECT_FALSE(points[2].on_frontier);  // base is smaller and faster
  EXPECT_TRUE(points[3].on_frontier);   // the fastest
  EXPECT_FALSE(points[4].on_frontier);  // did not run
  EXPECT_TRUE(points[5].on_frontier);   // equal figures: both kept
  ASSERT_TRUE(recommend(points));
  EXPECT_EQ(points[*recommend(points)].backend, "smaller");
}

TEST(AllocatorFrontier, TheRecommendationSaysWhatToSetAndWhatItSaves) {
  Advice advice;
  advice.trace_name = "t";
  advice.points = {point("base", 200 << 20, 0, 0, 10), point("small", 150 << 20, 0, 0, 20)};
  advice.points[1].apply_line = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
  mark_frontier(advice.points);
  advice.recommended = recommend(advice.points);
  advice.baseline = 0;
  advice.baseline_reason = "recorded under it";
  std::string text = recommendation_text(advice);
  EXPECT_NE(text.find("set: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"), std::string::npos);
  EXPECT_NE(text.find("predicted peak reserved: 150.0 MiB"), std::string::npos);
  EXPECT_NE(text.find("saving 50.0 MiB (-25.0 %)"), std::string::npos);
  EXPECT_NE(text.find("+100.0 %"), std::string::npos);  // the cost: twice the time per event
  nlohmann::json j = to_json(advice);
  EXPECT_EQ(j["schema"], kAdviseSchema);
  EXPECT_EQ(j["recommendation"]["saving_bytes"], 50 << 20);
  EXPECT_EQ(j["baseline"], "base");
}

// memrel's floor (null) allocates nothing real: it was on the frontier, dominated the allocators
// and was recommended with an empty "set:" line. Drawn for scale, never advised.
TEST(AllocatorFrontier, TheFloorIsNeverOnTheFrontierNorRecommended) {
  FrontierPoint floor = point("null", 100, 0, 0, 1);
  floor.floor = true;
  std::vector<FrontierPoint> points{floor, point("host-malloc", 200, 10, 10, 50)};
  mark_frontier(points);
  EXPECT_FALSE(points[0].on_frontier);
  EXPECT_TRUE(points[1].on_frontier);
  EXPECT_EQ(recommend(points), std::optional<std::size_t>(1));
  Advice only_floor;
  only_floor.points = {floor};
  mark_frontier(only_floor.points);
  EXPECT_FALSE(recommend(only_floor.points));
  EXPECT_NE(recommendation_text(only_floor).find("only memrel's floor (null)"), std::string::npos);
}

}  // namespace
}  // namespace memrel
