// The child path of the conformance suite (test_in_child.hpp) takes the child's verdict
// faithfully: a pass, a failure, a skip with its reason, and a filter that runs no test, each
// seen from the parent. The DISABLED_ tests are the children's; they run only when started by
// these tests (and ctest does not list them: tests/CMakeLists.txt).
#include "allocators/test_in_child.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace memrel::testing {
namespace {

constexpr const char* kProbe = "MEMREL_TEST_IN_CHILD_PROBE";

TEST(TestInChildChildren, DISABLED_SeesTheVariableItWasGiven) {
  const char* v = std::getenv(kProbe);
  ASSERT_NE(v, nullptr) << kProbe << " is not set";
  EXPECT_EQ(std::string(v), "given") << kProbe << " is not the value given";
  EXPECT_TRUE(running_in_child());
}

TEST(TestInChildChildren, DISABLED_Skips) { GTEST_SKIP() << "the child's own reason"; }

TEST(TestInChildChildren, DISABLED_Crashes) { std::abort(); }

const std::string kChildren = "TestInChildChildren.DISABLED_";

TEST(TestInChild, PassesWhenTheChildsTestPassesWithTheEnvironmentGiven) {
  ChildVerdict v = run_test_in_child(kChildren + "SeesTheVariableItWasGiven", {{kProbe, "given"}},
                                     /*also_run_disabled=*/true);
  EXPECT_EQ(v.status, ChildVerdict::Status::kPassed) << v.why << "\n" << v.output;
}

TEST(TestInChild, FailsWhenTheChildsTestFails) {
  ChildVerdict v = run_test_in_child(kChildren + "SeesTheVariableItWasGiven", {{kProbe, "other"}},
                                     /*also_run_disabled=*/true);
  EXPECT_EQ(v.status, ChildVerdict::Status::kFailed) << v.output;
  EXPECT_NE(v.why.find("is not the value given"), std::string::npos) << v.why;
}

TEST(TestInChild, SkipsWithTheChildsReason) {
  ChildVerdict v = run_test_in_child(kChildren + "Skips", {}, /*also_run_disabled=*/true);
  EXPECT_EQ(v.status, ChildVerdict::Status::kSkipped) << v.why << "\n" << v.output;
  EXPECT_NE(v.why.find("the child's own reason"), std::string::npos) << v.why;
}

TEST(TestInChild, FailsWhenTheChildCrashes) {
  ChildVerdict v = run_test_in_child(kChildren + "Crashes", {}, /*also_run_disabled=*/true);
  EXPECT_EQ(v.status, ChildVerdict::Status::kFailed) << v.output;
  EXPECT_NE(v.why.find("died of signal"), std::string::npos) << v.why;
}

TEST(TestInChild, FailsWhenTheFilterRunsNoTest) {
  ChildVerdict v = run_test_in_child("NoSuchSuite.NoSuchTest", {});
  EXPECT_EQ(v.status, ChildVerdict::Status::kFailed) << v.output;
  EXPECT_NE(v.why.find("did not run exactly the one test"), std::string::npos) << v.why;
}

}  // namespace
}  // namespace memrel::testing
