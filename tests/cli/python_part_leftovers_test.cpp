// What memrel removes after a Python part killed before its own cleanup: only what the part named
// and only while it is still the part's (a half-written report folder, a temporary file).
#include "cli/python_part_leftovers.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace memrel::cli {
namespace {

namespace fs = std::filesystem;

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string leaves(const fs::path& path) {
  return "memrel_entry.py leaves " + hex(path.string()) + "\n";
}

class PythonPartLeftovers : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/memrel-leftovers-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& path, const std::string& text = "x") { std::ofstream(path) << text; }
  fs::path dir_;
};

TEST_F(PythonPartLeftovers, ReadsEachAnnouncedAbsolutePathAndNothingElse) {
  const std::string said = "memrel_entry.py ran\n" + leaves("/a/b\nc") + leaves("/d") +
                           "memrel_entry.py leaves 2f7\n"   // odd length
                           "memrel_entry.py leaves 2f00\n"  // a NUL
                           "memrel_entry.py leaves 2F61\n"  // upper case is not ours
                           "memrel_entry.py leaves 61\n"    // relative
                           "memrel_entry.py leaves \n" +    // empty
                           "memrel_entry.py leaves " +
                           hex("/cut");  // cut short by the kill
  EXPECT_EQ(announced_leftovers(said), (std::vector<std::string>{"/a/b\nc", "/d"}));
}

TEST_F(PythonPartLeftovers, RemovesAHalfWrittenReportFolderWithoutFollowingItsLinks) {
  const fs::path outside = dir_ / "users-file";
  write(outside, "keep");
  const fs::path tmp = dir_ / "rep.tmp-123";
  fs::create_directories(tmp / "plots");
  write(tmp / kReportPartialMarker, "");
  write(tmp / "plots" / "a.png");
  fs::create_symlink(outside, tmp / "link");
  EXPECT_EQ(remove_leftovers(leaves(tmp)), std::vector<std::string>{tmp.string()});
  EXPECT_FALSE(fs::exists(fs::symlink_status(tmp)));
  std::ifstream kept(outside);
  std::string text;
  kept >> text;
  EXPECT_EQ(text, "keep");
}

TEST_F(PythonPartLeftovers, LeavesAFolderNoLongerMarkedHalfWritten) {
  const fs::path finished = dir_ / "rep.tmp-124";
  fs::create_directories(finished);
  write(finished / ".memrel-report");
  EXPECT_TRUE(remove_leftovers(leaves(finished)).empty());
  EXPECT_TRUE(fs::exists(finished / ".memrel-report"));
}

TEST_F(PythonPartLeftovers, LeavesALinkWhereThePathWasEvenToAMarkedFolder) {
  const fs::path marked = dir_ / "marked";
  fs::create_directories(marked);
  write(marked / kReportPartialMarker, "");
  const fs::path link = dir_ / "rep.tmp-125";
  fs::create_directory_symlink(marked, link);
  EXPECT_TRUE(remove_leftovers(leaves(link)).empty());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::exists(marked / kReportPartialMarker));
}

TEST_F(PythonPartLeftovers, RemovesATemporaryFileAndLeavesWhatIsGone) {
  const fs::path tmp = dir_ / "m.md.tmp.77";
  write(tmp);
  const fs::path gone = dir_ / ".memtrace-77-0.tmp";  // renamed into place before the kill
  EXPECT_EQ(remove_leftovers(leaves(tmp) + leaves(gone)), std::vector<std::string>{tmp.string()});
  EXPECT_FALSE(fs::exists(tmp));
}

}  // namespace
}  // namespace memrel::cli
