#include "platform/one_line_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace memrel {
namespace {

// tests/data/one_line_texts.json: each text as hex bytes (a byte that is not UTF-8 cannot stand
// in JSON) and its line; test_hostile_inputs.py checks the Python twin
// (scripts/memrel_outputs/one_line.py) against the same table. The seventh adversarial pass (m3):
// `run -w $'ab\xffc'` printed the byte 0xff itself to the terminal.
TEST(OneLineText, AgreesWithTheSharedTable) {
  const nlohmann::json table = testing::shared_test_table("one_line_texts.json");
  ASSERT_GE(table.size(), 10u);
  for (const auto& row : table) {
    EXPECT_EQ(one_line_text(testing::from_hex(row[0].get<std::string>())),
              row[1].get<std::string>())
        << row[0].get<std::string>();
  }
}

}  // namespace
}  // namespace memrel
