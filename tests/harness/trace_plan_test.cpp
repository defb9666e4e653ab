// What a cell decides before replaying a trace: the scale, the peak at that scale, and the
// events after which the time series is probed.
#include "harness/workload/trace_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "trace_test_support.hpp"

namespace memrel {
namespace {

using testing::alloc_record;
using testing::free_record;

Trace trace_of(const std::vector<TraceRecord>& records) {
  Trace t;
  t.records = records;
  nlohmann::json h = testing::trace_header(records);
  t.blocks = t.allocs = h["counts"]["allocs"].get<std::uint64_t>();
  t.frees = h["counts"]["frees"].get<std::uint64_t>();
  t.peak_requested_bytes = h["peak_requested_bytes"].get<std::uint64_t>();
  t.peak_requested_event = h["peak_requested_event"].get<std::uint64_t>();
  return t;
}

TEST(TracePlan, ScaleIsAutoOneOrOneOverN) {
  EXPECT_EQ(parse_trace_scale("auto"), 0u);
  EXPECT_EQ(parse_trace_scale("1"), 1u);
  EXPECT_EQ(parse_trace_scale("1/64"), 64u);
  for (const char* bad : {"", "2", "1/0", "1/", "0.5", "1/-4", "1/x", "1/99999999999999999"})
    EXPECT_THROW(parse_trace_scale(bad), std::invalid_argument) << bad;
  EXPECT_EQ(trace_scale_text(0), "auto");
  EXPECT_EQ(trace_scale_text(1), "1");
  EXPECT_EQ(trace_scale_text(16), "1/16");
}

TEST(TracePlan, ScaledSizesRoundUpSoNoRequestVanishes) {
  EXPECT_EQ(scaled_size(1, 64), 1u);
  EXPECT_EQ(scaled_size(64, 64), 1u);
  EXPECT_EQ(scaled_size(65, 64), 2u);
  EXPECT_EQ(scaled_size(360u << 20, 1), 360u << 20);
}

TEST(TracePlan, AutoScaleIsTheSmallestPowerOfTwoThatFitsTheCapacity) {
  const std::uint64_t GiB = std::uint64_t{1} << 30;
  Trace t = trace_of({alloc_record(0, 40 * GiB), alloc_record(1, 20 * GiB),
                      free_record(0, 40 * GiB), free_record(1, 20 * GiB)});
  EXPECT_EQ(auto_trace_divisor(t, 100 * GiB), 1u);  // fits: replayed as recorded
  EXPECT_EQ(auto_trace_divisor(t, GiB), 64u);       // 60 GiB: 1/64 is 0.94 GiB
  TracePlan plan = make_trace_plan(t, 64);
  EXPECT_EQ(plan.peak_requested, 60 * GiB / 64);
  EXPECT_EQ(plan.peak_event, 2u);
}

TEST(TracePlan, SamplesCatchThePeakOfEveryStretch) {
  // 100 alloc/free pairs whose sizes rise to a peak at pair 37, then fall.
  std::vector<TraceRecord> records;
  for (std::uint32_t i = 0; i < 100; ++i) {
    std::uint64_t size = 1000 - (i > 37 ? i - 37 : 37 - i);
    records.push_back(alloc_record(i, size));
    records.push_back(free_record(i, size));
  }
  TracePlan plan = make_trace_plan(trace_of(records), 1, 10);  // stretches of 20 events
  EXPECT_EQ(plan.sample_every, 20u);
  EXPECT_EQ(plan.peak_requested, 1000u);
  EXPECT_EQ(plan.peak_event, 75u);  // after the alloc of pair 37
  EXPECT_TRUE(std::is_sorted(plan.samples.begin(), plan.samples.end()));
  EXPECT_NE(std::find(plan.samples.begin(), plan.samples.end(), 75u), plan.samples.end());
  EXPECT_EQ(plan.samples.back(), 200u);
  // Each stretch: its end, and its peak (an alloc, so never the end, which is a free).
  EXPECT_EQ(plan.samples.size(), 20u);
}

}  // namespace
}  // namespace memrel
