// --gpus against a fake machine (MEMREL_FAKE_GPUS): the list, its errors, the child's view.
#include "platform/gpu_selection.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

namespace memrel {
namespace {

class FakeGpus : public ::testing::Test {
 protected:
  void SetUp() override { setenv("MEMREL_FAKE_GPUS", "4", 1); }
  void TearDown() override { unsetenv("MEMREL_FAKE_GPUS"); }
  static std::string error_of(const std::string& spec) {
    try {
      select_gpus(spec);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(FakeGpus, AllIsEveryGpuAndAListIsThoseInItsOrder) {
  auto all = select_gpus("all");
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[3].index, 3u);
  auto some = select_gpus("2,0");
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].index, 2u);
  EXPECT_EQ(some[1].index, 0u);
}

TEST_F(FakeGpus, BadListsAreOneLineNamingTheOption) {
  EXPECT_EQ(error_of(""), "--gpus: empty (give all, or indices like 0,2)");
  EXPECT_EQ(error_of("4"), "--gpus: no GPU 4 here (indices 0 to 3)");
  EXPECT_EQ(error_of("1,1"), "--gpus: GPU 1 given twice");
  EXPECT_EQ(error_of("1,"), "--gpus: '' is not a GPU index (give all, or indices like 0,2)");
  EXPECT_EQ(error_of("-1"), "--gpus: '-1' is not a GPU index (give all, or indices like 0,2)");
  EXPECT_EQ(error_of("99999999999"),
            "--gpus: '99999999999' is not a GPU index (give all, or indices like 0,2)");
}

TEST(GpuEnvironment, AChildSeesItsGpuByUuidElseByIndexInPciOrder) {
  auto real = gpu_environment({1, "GPU-1234"});
  EXPECT_EQ(real.at("CUDA_VISIBLE_DEVICES"), "GPU-1234");
  EXPECT_EQ(real.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
  EXPECT_EQ(gpu_environment({3, ""}).at("CUDA_VISIBLE_DEVICES"), "3");
}

}  // namespace
}  // namespace memrel
