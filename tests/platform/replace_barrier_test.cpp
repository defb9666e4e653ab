// A file or folder the file system keeps from being renamed over (chattr +i) or renamed into
// (chattr +a) is told from one it lets be, so that every output is refused before the work.
#include "platform/replace_barrier.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "test_support.hpp"

namespace memrel {
namespace {

using testing::TempDir;
using testing::write_text;

// chattr needs root (CAP_LINUX_IMMUTABLE) and a file system that keeps the attributes.
bool chattr(const std::string& flag, const std::string& path) {
  return std::system(("chattr " + flag + " '" + path + "' 2>/dev/null").c_str()) == 0;
}

TEST(ReplaceBarrier, AnOrdinaryFileAndFolderHaveNone) {
  TempDir dir;
  write_text(dir.file("f"), "x");
  EXPECT_EQ(replace_barrier(dir.file("f")), "");
  EXPECT_EQ(replace_barrier(dir.path()), "");
  EXPECT_EQ(replace_barrier(dir.file("absent")), "");  // nothing to ask: the write says
}

TEST(ReplaceBarrier, AnImmutableFileAndAnAppendOnlyFolderAreSaid) {
  TempDir dir;
  write_text(dir.file("f"), "x");
  if (!chattr("+i", dir.file("f")))
    GTEST_SKIP() << "chattr +i is refused here (not root, or a file system without attributes)";
  const std::string immutable = replace_barrier(dir.file("f"));
  chattr("-i", dir.file("f"));
  EXPECT_EQ(immutable, "is immutable (chattr +i)");
  ASSERT_TRUE(chattr("+a", dir.path()));
  const std::string append_only = replace_barrier(dir.path());
  chattr("-a", dir.path());
  EXPECT_EQ(append_only, "is append-only (chattr +a)");
}

}  // namespace
}  // namespace memrel
