// A run's start time as the history keeps it: checked field by field, and in UTC where the text
// says its offset, so that the history's order (by the text) is the order of the times.
#include "platform/iso8601_time.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace memrel {
namespace {

TEST(HistoryTime, AnOffsetIsToldInUtc) {
  EXPECT_EQ(history_time_text("2026-12-05T10:00:00+09:00"), "2026-12-05T01:00:00Z");
  EXPECT_EQ(history_time_text("2026-12-05T01:30:00-0230"), "2026-12-05T04:00:00Z");
  EXPECT_EQ(history_time_text("2026-01-01T00:10:00+01:00"), "2025-12-31T23:10:00Z");
  EXPECT_EQ(history_time_text("2026-12-02T15:10:55+00:00"), "2026-12-02T15:10:55Z");
  EXPECT_EQ(history_time_text("2026-12-02T15:10:55.25Z"), "2026-12-02T15:10:55.25Z");
}

TEST(HistoryTime, ADateAloneOrALocalTimeIsKeptAsItIs) {
  EXPECT_EQ(history_time_text("2026-12-05"), "2026-12-05");
  EXPECT_EQ(history_time_text("2026-12-05 10:00:00"), "2026-12-05 10:00:00");
  EXPECT_EQ(history_time_text("2024-02-29T12:00"), "2024-02-29T12:00");
}

TEST(HistoryTime, FieldsOutOfTheirRangesAreRefused) {
  for (const char* bad :
       {"2026-12-05T25:00:00Z", "2026-02-30T10:00:00Z", "2025-02-29", "2026-13-01",
        "2026-12-05T10:60:00Z", "2026-12-05T10:00:61Z", "2026-12-05T10:00:00+15:00",
        "2026-12-05T10:00:00+0900x", "2026-12-05T10:00:00 UTC", "2026-12-05X", "yesterday",
        "2026-12-05T10:00:00.Z", "2026-12-05T1"})
    EXPECT_THROW(history_time_text(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace memrel
