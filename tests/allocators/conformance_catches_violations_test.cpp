// The conformance checks can fail: each planted fault (planted_allocator.hpp) is found by the
// check of the contract it breaks, with a finding that names what went wrong, and the same
// allocator without a fault passes every check (so the findings come from the faults, not from
// checks that fail on anything).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "allocators/conformance_contracts.hpp"
#include "allocators/planted_allocator.hpp"

namespace memrel::conformance {
namespace {

using testing::Fault;
using testing::PlantedAllocator;

struct NamedCheck {
  const char* name;
  Check check;
};

const std::vector<NamedCheck>& every_check() {
  static const std::vector<NamedCheck> checks = {
      {"blocks", blocks_are_non_null_distinct_and_fillable},
      {"again", freed_memory_can_be_allocated_again},
      {"usage", usage_follows_each_block},
      {"zero", zero_byte_request_has_a_defined_outcome},
      {"huge", huge_request_throws_out_of_memory},
      {"release twice", release_is_idempotent},
      {"release at the end", release_after_freeing_everything_leaves_nothing_allocated},
      {"synchronize", synchronize_is_callable_at_any_time},
  };
  return checks;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

TEST(ConformanceChecks, PassAnAllocatorWithoutAFault) {
  for (const NamedCheck& c : every_check()) {
    PlantedAllocator allocator(Fault::kNone);
    Findings found = run_check(c.check, allocator, UsageAccounting::kOwn);
    EXPECT_TRUE(found.violations.empty()) << c.name << ":" << joined(found.violations);
  }
}

struct Planted {
  const char* name;  // the test's name
  Fault fault;
  Check check;           // the contract the fault breaks
  const char* expected;  // a part of the finding that says what went wrong
};

void PrintTo(const Planted& p, std::ostream* out) { *out << p.name; }

class ConformanceChecksCatch : public ::testing::TestWithParam<Planted> {};

TEST_P(ConformanceChecksCatch, ThePlantedFault) {
  const Planted& p = GetParam();
  PlantedAllocator allocator(p.fault);
  Findings found = run_check(p.check, allocator, UsageAccounting::kOwn);
  ASSERT_FALSE(found.violations.empty()) << "the check found nothing wrong";
  bool named = false;
  for (const auto& v : found.violations) named = named || v.find(p.expected) != std::string::npos;
  EXPECT_TRUE(named) << "no finding says \"" << p.expected << "\":" << joined(found.violations);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, ConformanceChecksCatch,
    ::testing::Values(
        Planted{"NullForOneByte", Fault::kNullForOneByte, blocks_are_non_null_distinct_and_fillable,
                "allocate(1) returned null"},
        Planted{"EveryBlockAtTheSameAddress", Fault::kEveryBlockAtTheSameAddress,
                blocks_are_non_null_distinct_and_fillable, "live blocks overlap"},
        Planted{"AllocatedNeverFalls", Fault::kAllocatedNeverFalls, usage_follows_each_block,
                "then its free and synchronize(): allocated was"},
        Planted{"AllocatedRisesByHalfTheRequest", Fault::kAllocatedRisesByHalfTheRequest,
                usage_follows_each_block, "not up by the request"},
        Planted{"ReservedBelowAllocated", Fault::kReservedBelowAllocated, usage_follows_each_block,
                "block live: reserved"},
        Planted{"ZeroBytesThrowsInvalidArgument", Fault::kZeroBytesThrowsInvalidArgument,
                zero_byte_request_has_a_defined_outcome, "threw std::invalid_argument: zero bytes"},
        Planted{"HugeRequestThrowsBadAlloc", Fault::kHugeRequestThrowsBadAlloc,
                huge_request_throws_out_of_memory, "threw std::bad_alloc"},
        Planted{"OutOfMemoryCarriesNoSize", Fault::kOutOfMemoryCarriesNoSize,
                huge_request_throws_out_of_memory, "OutOfMemory carries 0 bytes"},
        Planted{"HugeRequestSucceeds", Fault::kHugeRequestSucceeds,
                huge_request_throws_out_of_memory, "instead of throwing OutOfMemory"},
        Planted{"ReleaseFreesOneBlockPerCall", Fault::kReleaseFreesOneBlockPerCall,
                release_is_idempotent, "a second release() changed usage"},
        Planted{"ReleaseCountsCachedAsAllocated", Fault::kReleaseCountsCachedAsAllocated,
                release_after_freeing_everything_leaves_nothing_allocated,
                "every block freed and released, yet allocated is"},
        Planted{"SynchronizeThrowsWhenIdle", Fault::kSynchronizeThrowsWhenIdle,
                synchronize_is_callable_at_any_time, "threw std::logic_error"}),
    [](const ::testing::TestParamInfo<Planted>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace memrel::conformance
