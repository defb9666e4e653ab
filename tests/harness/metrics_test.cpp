#include "harness/results/metrics.hpp"

#include <gtest/gtest.h>

namespace memrel {
namespace {

constexpr std::uint64_t MiB = 1 << 20;

Snapshot snap(std::uint64_t requested, std::optional<std::uint64_t> allocated,
              std::optional<std::uint64_t> reserved, std::uint64_t device_used,
              std::uint64_t baseline) {
  Snapshot s;
  s.requested = requested;
  s.allocated = allocated;
  s.reserved = reserved;
  s.device_used = device_used;
  s.device_used_delta =
      static_cast<std::int64_t>(device_used) - static_cast<std::int64_t>(baseline);
  return s;
}

// The seeds' single-large through a caching allocator: 360 MiB asked, 362 reserved; release while
// live returns the 2 MiB slack; free keeps it; free + release returns it all.
CellResult caching_single_large() {
  const std::uint64_t base = 600 * MiB;
  CellResult c;
  c.marks.push_back(
      {"after-alloc", 1, snap(360 * MiB, 360 * MiB, 362 * MiB, base + 362 * MiB, base)});
  ReleaseRecord live;
  live.step = 2;
  live.before = snap(360 * MiB, 360 * MiB, 362 * MiB, base + 362 * MiB, base);
  live.after = snap(360 * MiB, 360 * MiB, 360 * MiB, base + 360 * MiB, base);
  ReleaseRecord freed;
  freed.step = 5;
  freed.before = snap(0, 0, 360 * MiB, base + 360 * MiB, base);
  freed.after = snap(0, 0, 0, base, base);
  c.releases = {live, freed};
  StepRecord alloc;
  alloc.op = "alloc";
  alloc.latency_ns = 500;
  alloc.after = live.before;
  StepRecord free_step;
  free_step.op = "free";
  free_step.latency_ns = 7;
  free_step.after = freed.before;
  c.steps = {alloc, free_step};
  return c;
}

TEST(Metrics, PeaksOverheadAndUtilization) {
  CellMetrics m = compute_metrics(caching_single_large());
  EXPECT_EQ(m.peak_requested, 360 * MiB);
  EXPECT_EQ(*m.peak_reserved, 362 * MiB);
  EXPECT_EQ(*m.peak_allocated, 360 * MiB);
  EXPECT_EQ(m.peak_device_used_delta, static_cast<std::int64_t>(362 * MiB));
  EXPECT_EQ(*m.max_overhead_bytes, static_cast<std::int64_t>(360 * MiB));  // cached after the free
  EXPECT_DOUBLE_EQ(*m.overhead_ratio, 362.0 / 360.0);
  EXPECT_DOUBLE_EQ(*m.utilization, 360.0 / 362.0);
}

TEST(Metrics, ReleaseEffectivenessPerReleaseAndWeighted) {
  CellMetrics m = compute_metrics(caching_single_large());
  ASSERT_EQ(m.releases.size(), 2u);
  EXPECT_EQ(m.releases[0].releasable, 2 * MiB);
  EXPECT_EQ(m.releases[0].returned, static_cast<std::int64_t>(2 * MiB));
  EXPECT_DOUBLE_EQ(*m.releases[0].effectiveness, 1.0);
  EXPECT_EQ(m.releases[1].releasable, 360 * MiB);
  EXPECT_DOUBLE_EQ(*m.release_effectiveness, 1.0);
  EXPECT_EQ(*m.residual_bytes, 0);
}

TEST(Metrics, NothingReleasableIsUndefinedNotZero) {
  const std::uint64_t base = 100;
  CellResult c;
  ReleaseRecord r;
  r.before = snap(64, 64, 64, base + 64, base);
  r.after = snap(64, 64, 64, base + 64, base);
  c.releases = {r};
  CellMetrics m = compute_metrics(c);
  EXPECT_EQ(m.releases[0].releasable, 0u);
  EXPECT_FALSE(m.releases[0].effectiveness.has_value());
  EXPECT_FALSE(m.release_effectiveness.has_value());
}

TEST(Metrics, AReleaseThatReturnsHalf) {
  const std::uint64_t base = 0;
  CellResult c;
  ReleaseRecord r;
  r.before = snap(0, 0, 100 * MiB, 100 * MiB, base);
  r.after = snap(0, 0, 50 * MiB, 50 * MiB, base);
  c.releases = {r};
  CellMetrics m = compute_metrics(c);
  EXPECT_DOUBLE_EQ(*m.release_effectiveness, 0.5);
  EXPECT_EQ(*m.residual_bytes, static_cast<std::int64_t>(50 * MiB));
}

TEST(Metrics, WithoutAllocatorViewFallsBackToDriverView) {
  CellResult c;
  ReleaseRecord r;
  r.before = snap(10, std::nullopt, std::nullopt, 110, 0);
  r.after = snap(10, std::nullopt, std::nullopt, 12, 0);
  c.releases = {r};
  CellMetrics m = compute_metrics(c);
  EXPECT_EQ(m.releases[0].releasable, 100u);  // 110 held - 10 live
  EXPECT_EQ(m.releases[0].returned, 98);
  EXPECT_FALSE(m.peak_reserved.has_value());
  EXPECT_FALSE(m.utilization.has_value());
}

TEST(Metrics, MedianLatencyPerOpIsARealSample) {
  CellResult c;
  for (std::uint64_t ns : {40, 10, 30, 20}) {
    StepRecord s;
    s.op = "alloc";
    s.latency_ns = ns;
    c.steps.push_back(s);
  }
  StepRecord oom;
  oom.op = "alloc";
  oom.outcome = "oom";
  oom.latency_ns = 1'000'000;
  c.steps.push_back(oom);
  CellMetrics m = compute_metrics(c);
  EXPECT_EQ(m.median_latency_ns.at("alloc"), 20u);
  EXPECT_EQ(m.median_latency_ns.count("free"), 0u);
}

TEST(Metrics, MedianOfNothingThrows) { EXPECT_THROW(median({}), std::invalid_argument); }

}  // namespace
}  // namespace memrel
