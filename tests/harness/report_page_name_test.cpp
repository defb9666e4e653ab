#include "harness/results/report_page_name.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace memrel {
namespace {

// The names and pages of tests/data/report_page_names.json, which test_file_names.py checks
// against the report's own mapping (scripts/memrel_report/prepare.py, slug): the two agree.
TEST(ReportPageName, IsTheReportsMappingForEveryNameOfTheSharedTable) {
  const nlohmann::json table = testing::shared_test_table("report_page_names.json");
  ASSERT_GE(table.size(), 10u);
  for (const auto& [name, page] : table.items())
    EXPECT_EQ(report_page_name(name), page.get<std::string>()) << name;
}

TEST(ReportPageName, FindsANameCraftedAsAnothersPage) {
  EXPECT_FALSE(names_sharing_a_page({"a/b", "a_b", "a?b", "temp-then-delete"}));
  const auto pair = names_sharing_a_page({"x", "a/b", "y", "a_b-c14cddc0"});
  ASSERT_TRUE(pair);
  EXPECT_EQ(pair->first, 1u);
  EXPECT_EQ(pair->second, 3u);
  EXPECT_FALSE(names_sharing_a_page({"a/b", "a/b"}));  // one name twice: refuse_duplicates' case
}

}  // namespace
}  // namespace memrel
