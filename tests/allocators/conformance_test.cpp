// The allocator contracts (conformance_contracts.hpp), written once and instantiated over every
// backend: each row of the compiled table and each backend file of benchmarks/backends/, as
// RMM's mr_ref_tests do over their resource factories. A new backend gets the whole suite by
// being a row or a file; its test names are its name with '-' as '_'.
//
// Instances: Host/ (cpu label) run here; Device/ (gpu label) skip with the reason availability()
// gives where there is no GPU (or no plugin, or no RMM). Each instance makes its allocator in
// the test process, except a backend with a cell environment (the torch variants' allocator
// settings): it cannot be configured once its library is loaded, so its instance re-runs itself
// in a child that starts with that environment, as the runner starts its cells
// (test_in_child.hpp). ChildProcess/ proves that path here, without a GPU, with host-malloc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "allocators/conformance_contracts.hpp"
#include "allocators/conformance_rows.hpp"
#include "allocators/test_in_child.hpp"

namespace memrel::conformance {
namespace {

const std::string kBackendsDir = std::string(MEMREL_SOURCE_DIR) + "/benchmarks/backends";

class Conformance : public ::testing::TestWithParam<BackendRow> {
 protected:
  enum class Needs { kAnything, kComparableUsage };

  void expect_contract(Check check, Needs needs = Needs::kAnything) {
    const BackendRow& row = GetParam();
    const BackendInfo& b = row.backend;
    if (!row.error.empty()) FAIL() << "cannot read " << kBackendsDir << ": " << row.error;
    if (needs == Needs::kComparableUsage && row.usage == UsageAccounting::kNotComparable) {
      GTEST_SKIP() << b.name << ": under AddressSanitizer mallinfo2 sees none of the sanitizer's "
                   << "memory, so its usage figures cannot be compared (docs/testing.md)";
    }
    Availability a = b.availability();
    if (!a.available) GTEST_SKIP() << b.name << " cannot run here: " << a.reason;

    if (!b.cell_environment.empty() && !testing::running_in_child()) {
      expect_passes_in_child(b);
      return;
    }
    for (const auto& [name, value] : b.cell_environment) {
      const char* v = std::getenv(name.c_str());
      ASSERT_TRUE(v != nullptr && value == v)
          << b.name << " needs " << name << "=" << value << " in its process";
    }

    std::unique_ptr<Allocator> allocator;
    try {
      allocator = b.make();
    } catch (const BackendUnavailable& e) {
      GTEST_SKIP() << b.name << " cannot run here: " << e.what();
    }
    ASSERT_NE(allocator, nullptr) << b.name << ": make() returned no allocator";
    EXPECT_EQ(allocator->space(), b.space) << b.name << ": the allocator's space is not its row's";
    Findings found = run_check(check, *allocator, row.usage);
    if (!found.observed.empty()) {
      RecordProperty("observed", found.observed);
      std::cout << b.name << ": " << found.observed << "\n";
    }
    for (const std::string& v : found.violations) ADD_FAILURE() << b.name << ": " << v;
  }

 private:
  void expect_passes_in_child(const BackendInfo& b) {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    testing::ChildVerdict child = testing::run_test_in_child(
        std::string(test->test_suite_name()) + "." + test->name(), b.cell_environment);
    switch (child.status) {
      case testing::ChildVerdict::Status::kPassed:
        return;
      case testing::ChildVerdict::Status::kSkipped:
        GTEST_SKIP() << "in a child with " << b.name << "'s environment: " << child.why;
      case testing::ChildVerdict::Status::kFailed:
        FAIL() << "in a child with " << b.name << "'s environment: " << child.why
               << "\n--- the child's output ---\n"
               << child.output;
    }
  }
};

TEST_P(Conformance, BlocksAreNonNullDistinctAndFillable) {
  expect_contract(blocks_are_non_null_distinct_and_fillable);
}

TEST_P(Conformance, FreedMemoryCanBeAllocatedAgain) {
  expect_contract(freed_memory_can_be_allocated_again);
}

TEST_P(Conformance, UsageRisesWithEachBlockAndReturnsAfterItsFree) {
  expect_contract(usage_follows_each_block, Needs::kComparableUsage);
}

TEST_P(Conformance, ZeroByteRequestHasADefinedOutcome) {
  expect_contract(zero_byte_request_has_a_defined_outcome);
}

TEST_P(Conformance, HugeRequestThrowsOutOfMemoryCarryingItsSize) {
  expect_contract(huge_request_throws_out_of_memory);
}

TEST_P(Conformance, ReleaseIsIdempotent) { expect_contract(release_is_idempotent); }

TEST_P(Conformance, ReleaseAfterFreeingEverythingLeavesNothingAllocated) {
  expect_contract(release_after_freeing_everything_leaves_nothing_allocated,
                  Needs::kComparableUsage);
}

TEST_P(Conformance, SynchronizeIsCallableAtAnyTime) {
  expect_contract(synchronize_is_callable_at_any_time);
}

std::string instance_name(const ::testing::TestParamInfo<BackendRow>& info) {
  return test_name_of(info.param);
}

INSTANTIATE_TEST_SUITE_P(Host, Conformance,
                         ::testing::ValuesIn(backend_rows(MemorySpace::kHost, kBackendsDir)),
                         instance_name);
INSTANTIATE_TEST_SUITE_P(Device, Conformance,
                         ::testing::ValuesIn(backend_rows(MemorySpace::kDevice, kBackendsDir)),
                         instance_name);

// host-malloc given a cell environment, so that its instances take the child path the torch
// variants take on the GPU; make() checks that the variable really reached the process.
BackendRow host_malloc_in_a_child() {
  BackendRow row;
  for (const BackendRow& r : backend_rows(MemorySpace::kHost, kBackendsDir)) {
    if (r.backend.name == "host-malloc") row = r;
  }
  row.backend.name = "host-malloc-in-a-child";
  row.backend.cell_environment = {{"MEMREL_CONFORMANCE_PROBE", "set-by-the-parent"}};
  auto make = row.backend.make;
  row.backend.make = [make]() -> std::unique_ptr<Allocator> {
    const char* v = std::getenv("MEMREL_CONFORMANCE_PROBE");
    if (v == nullptr || std::string(v) != "set-by-the-parent")
      throw std::runtime_error("MEMREL_CONFORMANCE_PROBE did not reach the child");
    return make();
  };
  return row;
}

INSTANTIATE_TEST_SUITE_P(ChildProcess, Conformance, ::testing::Values(host_malloc_in_a_child()),
                         instance_name);

}  // namespace
}  // namespace memrel::conformance
