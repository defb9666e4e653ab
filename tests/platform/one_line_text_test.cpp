#include "platform/one_line_text.hpp"

#include <gtest/gtest.h>

namespace memrel {
namespace {

TEST(OneLineText, ControlCharactersAreSpelledOut) {
  EXPECT_EQ(one_line_text("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(one_line_text(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(one_line_text("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(one_line_text("del\x7f"), "del\\x7f");
}

// The seventh adversarial pass (m3): `run -w $'ab\xffc'` printed the byte 0xff to the terminal.
TEST(OneLineText, BytesThatAreNotUtf8AreHexAsInJson) {
  EXPECT_EQ(one_line_text("ab\xff"
                          "c"),
            "ab\\xffc");
  EXPECT_EQ(one_line_text("\xe2\x82"
                          "a"),
            "\\xe2\\x82a");
}

TEST(OneLineText, C1AndDirectionControlsAreCodePoints) {
  EXPECT_EQ(one_line_text("a\xc2\x85"
                          "b"),
            "a\\u0085b");  // NEL
  EXPECT_EQ(one_line_text("x\xe2\x80\xae"
                          "y"),
            "x\\u202Ey");  // right-to-left override
  EXPECT_EQ(one_line_text("\xe2\x81\xa6"), "\\u2066");
}

TEST(OneLineText, OtherTextIsKept) {
  EXPECT_EQ(one_line_text("plain 'name' (known: a, b)"), "plain 'name' (known: a, b)");
  EXPECT_EQ(one_line_text("\xc3\xbc"
                          "ber \xf0\x9f\x98\x80"),
            "\xc3\xbc"
            "ber \xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace memrel
