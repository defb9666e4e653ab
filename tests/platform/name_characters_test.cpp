#include "platform/name_characters.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace memrel {
namespace {

// The names and verdicts of tests/data/name_characters.json, which test_trace_import.py checks
// against the importer's twin (scripts/memrel_trace/name_characters.py): the two agree.
TEST(NameCharacters, AgreeWithTheSharedTable) {
  const nlohmann::json table = testing::shared_test_table("name_characters.json");
  ASSERT_GE(table.size(), 20u);
  for (const auto& row : table) {
    const std::string name = row[0].get<std::string>();
    EXPECT_EQ(forbidden_name_character(name), row[1].get<std::string>()) << row[0].dump();
  }
}

}  // namespace
}  // namespace memrel
