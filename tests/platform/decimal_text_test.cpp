#include "platform/decimal_text.hpp"

#include <gtest/gtest.h>

namespace memrel {
namespace {

TEST(DecimalText, ComparesAsWrittenNotAsADouble) {
  EXPECT_EQ(compare_decimal_text("0.50000000000000000001", "0.5"), 1);
  EXPECT_EQ(compare_decimal_text("0.49999999999999999999", "0.5"), -1);
  EXPECT_EQ(compare_decimal_text("10.0000000000000000001", "10"), 1);
  EXPECT_EQ(compare_decimal_text("9.99999999999999999999", "10"), -1);
}

TEST(DecimalText, OneNumberInEverySpellingIsEqual) {
  for (const char* ten : {"10", "10.", "10.000", "010", "1e1", "1E+1", "0.1e2", "100e-1", ".1e2"})
    EXPECT_EQ(compare_decimal_text(ten, "10"), 0) << ten;
  for (const char* zero : {"0", "-0", "0.0", ".0", "0e5", "-0.000e-3"})
    EXPECT_EQ(compare_decimal_text(zero, "0"), 0) << zero;
  EXPECT_EQ(compare_decimal_text("0.000000001", shortest_decimal_text(1e-9)), 0);
}

TEST(DecimalText, SignsAndExponentsOrderNumbers) {
  EXPECT_EQ(compare_decimal_text("-1", "0"), -1);
  EXPECT_EQ(compare_decimal_text("-2", "-1"), -1);
  EXPECT_EQ(compare_decimal_text("1e-400", "0"), 1);
  EXPECT_EQ(compare_decimal_text("1e99999999999999999999", "86400"), 1);
  EXPECT_EQ(compare_decimal_text("1e-99999999999999999999", "1e-06"), -1);
  EXPECT_EQ(compare_decimal_text("123", "1234"), -1);
  EXPECT_EQ(compare_decimal_text("0.1234", "0.123"), 1);
}

TEST(DecimalText, TheSpellingIsMemrels) {
  for (const char* good : {"1", "-1", "1.", ".5", "1.5e-3", "2E+10"})
    EXPECT_TRUE(is_decimal_text(good)) << good;
  for (const char* bad : {"", ".", "-", "+1", "1e", "0x10", "1_0", " 1", "1.2.3", "inf", "nan"})
    EXPECT_FALSE(is_decimal_text(bad)) << bad;
}

}  // namespace
}  // namespace memrel
