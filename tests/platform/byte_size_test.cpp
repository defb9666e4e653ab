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
