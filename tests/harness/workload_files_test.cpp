#include "harness/workload/workload_files.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace memrel {
namespace {

TEST(WorkloadFiles, UnknownWorkloadListsTheKnownOnes) {
  try {
    resolve_workloads({"no-such-workload"},
                      std::string(MEMREL_SOURCE_DIR) + "/benchmarks/workloads");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("unknown workload 'no-such-workload'"), std::string::npos);
    EXPECT_NE(what.find("single-large"), std::string::npos);
  }
}

}  // namespace
}  // namespace memrel
