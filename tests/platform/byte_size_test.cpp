#include "platform/byte_size.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace memrel {
namespace {

TEST(ByteSize, BinaryUnitsUpToTheLimit) {
  EXPECT_EQ(parse_byte_size("4096", "--x", 1ull << 48), 4096u);
  EXPECT_EQ(parse_byte_size("360MiB", "--x", 1ull << 48), 377487360u);
  EXPECT_EQ(parse_byte_size("1GiB", "--x", 1ull << 48), 1073741824u);
  EXPECT_EQ(parse_byte_size("1.5KiB", "--x", 1ull << 48), 1536u);
  // ".1" and "0.4B" round to 0 bytes, which is no positive size (found by the fuzz target).
  for (const char* bad : {"", "-1", "0", "abc", "12XB", "1e20GiB", "1GB", ".1", "0.4B", "nan"}) {
    EXPECT_THROW(parse_byte_size(bad, "--x", 1ull << 48), std::invalid_argument) << bad;
  }
}

// The twelfth adversarial pass, c4-setting-fractional-bytes: "1.5" ran as 2 bytes and "0.1KiB"
// as 102, without a word.
TEST(ByteSize, AFractionOfAByteIsRefused) {
  EXPECT_EQ(parse_byte_size("0.25GiB", "--x", 1ull << 48), 268435456u);
  EXPECT_EQ(parse_byte_size("1.0", "--x", 1ull << 48), 1u);
  for (const char* bad : {"1.5", "1.000001", "0.1KiB", "1.1GiB", "2.5B"}) {
    try {
      parse_byte_size(bad, "trim_threshold", 1ull << 48);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not a whole number of bytes"), std::string::npos)
          << e.what();
    }
  }
}

// The seventy-sixth adversarial pass, c4-size-fraction-rounded-to-whole: a fraction a double cannot
// hold was rounded to whole bytes and taken (4095.99999999999999999 ran as 4096). Decimal digits
// are read exactly, however many; a fraction that makes whole bytes still does.
TEST(ByteSize, AFractionTooFineForADoubleIsStillAFraction) {
  for (const char* bad :
       {"4095.99999999999999999", "1023.9999999999999999KiB",
        "1.00000000000000000000000000000000000000000000001GiB", "9007199254740993.5"}) {
    try {
      parse_byte_size(bad, "--host-capacity", 1ull << 60);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not a whole number of bytes"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(parse_byte_size("9007199254740993", "--x", 1ull << 60), 9007199254740993u);
  EXPECT_EQ(parse_byte_size("0.0009765625KiB", "--x", 1ull << 60), 1u);
  EXPECT_EQ(parse_byte_size("1.000000000000000000000000000000GiB", "--x", 1ull << 60), 1ull << 30);
  EXPECT_THROW(parse_byte_size("0.5B", "--x", 1ull << 60), std::invalid_argument);
  // The limit, exactly: at it is taken, past it by a digit or a fraction is not.
  EXPECT_EQ(parse_byte_size("1KiB", "--x", 1024), 1024u);
  for (const char* past : {"1025", "1024.5", "1.0009765625KiB", "99999999999999999999999"})
    EXPECT_THROW(parse_byte_size(past, "--x", 1024), std::invalid_argument) << past;
  EXPECT_THROW(parse_byte_size("9", "--x", 5), std::invalid_argument);
  EXPECT_EQ(parse_byte_size("5", "--x", 5), 5u);
}

TEST(ByteSize, TheErrorNamesTheOptionAndTheText) {
  try {
    parse_byte_size("lots", "--host-capacity", 1ull << 30);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--host-capacity: 'lots'", 0), 0u) << e.what();
  }
  EXPECT_THROW(parse_byte_size("2GiB", "--x", 1ull << 30), std::invalid_argument);
  EXPECT_EQ(parse_byte_size("1GiB", "--x", 1ull << 30), 1ull << 30);
}

}  // namespace
}  // namespace memrel

// The seventy-second adversarial pass, c4-zero-with-unit-refused: where 0 is a size, it is one
// in every spelling; where it is not, in none.
TEST(ByteSize, ZeroIsASizeInEverySpellingWhereZeroIsTaken) {
  for (const char* zero : {"0", "00", "0B", "0KiB", "0.0MiB", ".0GiB", "0."})
    EXPECT_EQ(memrel::parse_byte_size_or_zero(zero, "--x", 1024), 0u) << zero;
  EXPECT_EQ(memrel::parse_byte_size_or_zero("1KiB", "--x", 1024), 1024u);
  for (const char* bad : {"", ".", "B", "0.0.0", "0x0", "-0", "0 ", "0KB"})
    EXPECT_THROW(memrel::parse_byte_size_or_zero(bad, "--x", 1024), std::invalid_argument) << bad;
  EXPECT_THROW(memrel::parse_byte_size("0KiB", "--x", 1024), std::invalid_argument);
}
