#include "platform/cut_json.hpp"

#include <gtest/gtest.h>

#include <string>

namespace memrel {
namespace {

TEST(CutJson, TheStartOfADocumentCutAnywhereIsCut) {
  EXPECT_TRUE(is_cut_json(""));  // the start of every document
  const std::string whole =
      R"({"context":{"backends":["null"],"note":"a \"quoted\" word","n":-1.5e3},"schema":"x"})";
  for (std::size_t n = 1; n < whole.size(); ++n)
    EXPECT_TRUE(is_cut_json(whole.substr(0, n))) << whole.substr(0, n);
}

TEST(CutJson, AWholeDocumentOrABadByteIsNotCut) {
  EXPECT_EQ(json_text_kind(R"({"context":{}})"), JsonTextKind::kWhole);
  EXPECT_FALSE(is_cut_json(R"({"context":{}})"));
  // A bad last byte is no cut: the parser stopped at it, not for want of more.
  EXPECT_EQ(json_text_kind(R"({"a":1}x)"), JsonTextKind::kNotJson);
  EXPECT_EQ(json_text_kind(R"({"a":x)"), JsonTextKind::kNotJson);
  // A user's line that begins as a journal's header and goes on as text.
  EXPECT_FALSE(is_cut_json(R"({"context": my notes on the run)"));
  EXPECT_FALSE(is_cut_json(R"({"context":{"a":1}} and more)"));
  EXPECT_FALSE(is_cut_json(std::string(R"({"context":{"a":)") + '\0'));
  EXPECT_FALSE(is_cut_json(R"({"context":{"a":NaN)"));
}

}  // namespace
}  // namespace memrel
