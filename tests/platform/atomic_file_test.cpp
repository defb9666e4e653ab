#include "platform/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "test_support.hpp"

namespace memrel {
namespace {

TEST(AtomicFile, AtomicWriteReplacesWholeAndLeavesNoTemp) {
  testing::TempDir dir;
  std::string path = dir.file("out.json");
  testing::write_text(path, "old");
  write_file_atomically(path, "new content");
  EXPECT_EQ(testing::read_text(path), "new content");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(AtomicFile, AtomicWriteIntoMissingFolderFailsAndKeepsNothingHalfWritten) {
  EXPECT_THROW(write_file_atomically("/nonexistent-dir/out.json", "x"), std::runtime_error);
}

}  // namespace
}  // namespace memrel
