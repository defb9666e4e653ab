#include "platform/path_for_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/sha256.hpp"

namespace memrel {
namespace {

// Python's os.fsencode(name).decode("utf-8", "backslashreplace"), the importer's rule.
TEST(PathForJson, EscapesEachByteThatIsNotUtf8AsPythonsBackslashreplace) {
  EXPECT_EQ(path_for_json("w\xff.json"), "w\\xff.json");
  EXPECT_EQ(path_for_json("plain/ascii.json"), "plain/ascii.json");
  EXPECT_EQ(path_for_json("\xc3\xbc"
                          "ber"),
            "\xc3\xbc"
            "ber");                                                  // ü: kept
  EXPECT_EQ(path_for_json("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");  // U+1F600: kept
  EXPECT_EQ(path_for_json("\xe2\x82"
                          "a"),
            "\\xe2\\x82a");                                              // cut short
  EXPECT_EQ(path_for_json("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(path_for_json("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(path_for_json("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(path_for_json("\x80"), "\\x80");
  // Once is enough: the text it gives is UTF-8, which it keeps.
  EXPECT_EQ(path_for_json(path_for_json("a\xfe\xff")), "a\\xfe\\xff");
}

TEST(PathForJson, WhatItGivesIsTextNlohmannJsonDumps) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_NO_THROW(nlohmann::json(path_for_json(all)).dump());
  EXPECT_THROW(nlohmann::json(all).dump(), nlohmann::json::type_error);
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Two blocks: the padding does not fit after 56 bytes.
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace memrel
