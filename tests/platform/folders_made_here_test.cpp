// What a command made for its outputs goes again when it refuses, and nothing else does: the
// user's folders, files and links stay whatever the spelling of the path.
#include "platform/folders_made_here.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "test_support.hpp"

namespace memrel {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_text;

TEST(FoldersMadeHere, RemovesWhatItMadeWhileEmptyAndKeepsAFolderWithAFile) {
  TempDir dir;
  FoldersMadeHere made;
  made.make("-o", dir.file("a/b/c"));
  made.make("--logs", dir.file("a/d"));
  write_text(dir.file("a/d/kept.log"), "x");
  made.remove_empty();
  EXPECT_FALSE(fs::exists(dir.file("a/b")));
  EXPECT_TRUE(fs::exists(dir.file("a/d/kept.log")));
  EXPECT_TRUE(fs::exists(dir.path()));
}

// ab makes OUT/rounds, then OUT/reference and OUT/candidate: OUT was made first, and removed in
// the order made it was not empty yet when its turn came (the forty-sixth adversarial pass,
// c8-ab-emfile-leaves-skeleton).
TEST(FoldersMadeHere, AFolderMadeFirstGoesAfterTheFoldersMadeInItLater) {
  TempDir dir;
  FoldersMadeHere made;
  made.make("--out", dir.file("out/rounds"));
  made.make("--out", dir.file("out/reference"));
  made.make("--out", dir.file("out/candidate"));
  made.remove_empty();
  EXPECT_FALSE(fs::exists(dir.file("out")));
  EXPECT_TRUE(fs::exists(dir.path()));
}

TEST(FoldersMadeHere, AFolderThereBeforeIsNotItsOwn) {
  TempDir dir;
  fs::create_directories(dir.file("there"));
  FoldersMadeHere made;
  made.make("-o", dir.file("there"));
  made.make("-o", dir.file("there/new"));
  write_text(dir.file("there/new/file"), "x");
  made.remove_with_contents();
  EXPECT_TRUE(fs::is_directory(dir.file("there")));
  EXPECT_FALSE(fs::exists(dir.file("there/new")));
}

TEST(FoldersMadeHere, UnwindingAnExceptionRemovesTheEmptyOnes) {
  TempDir dir;
  try {
    FoldersMadeHere made;
    made.make("--out", dir.file("x/y"));
    throw std::runtime_error("refused");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(dir.file("x")));
  {
    FoldersMadeHere made;  // an ordinary end keeps them: the command's outputs are in them
    made.make("--out", dir.file("z"));
  }
  EXPECT_TRUE(fs::is_directory(dir.file("z")));
}

// "a/../b" with a missing: the system makes a and b beside each other; both go, and the folder
// "a/.." spells (the parent, the user's) is never removed, even with contents.
TEST(FoldersMadeHere, ADotDotSpellingNeverRemovesTheParent) {
  TempDir dir;
  fs::create_directories(dir.file("p"));
  write_text(dir.file("p/user.txt"), "mine");
  FoldersMadeHere made;
  made.make("--out", dir.file("p/a/../b"));
  EXPECT_TRUE(fs::is_directory(dir.file("p/a")));
  EXPECT_TRUE(fs::is_directory(dir.file("p/b")));
  made.remove_with_contents();
  EXPECT_EQ(read_text(dir.file("p/user.txt")), "mine");
  EXPECT_FALSE(fs::exists(dir.file("p/a")));
  EXPECT_FALSE(fs::exists(dir.file("p/b")));
}

TEST(FoldersMadeHere, ALinkIsTheUsersEvenDangling) {
  TempDir dir;
  fs::create_symlink(dir.file("nowhere"), dir.file("dangling"));
  FoldersMadeHere made;
  EXPECT_THROW(made.make("--out", dir.file("dangling")), std::invalid_argument);
  made.remove_with_contents();
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling")));
}

TEST(FoldersMadeHere, AFolderThatCannotBeMadeIsNamed) {
  TempDir dir;
  write_text(dir.file("file"), "x");
  FoldersMadeHere made;
  try {
    made.make("--logs", dir.file("file/sub"));
    FAIL() << "made a folder below a file";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--logs " + dir.file("file/sub") + ": cannot create"),
              std::string::npos)
        << e.what();
  }
}

TEST(FoldersMadeHere, ALoopOfLinksIsSaidAsOne) {
  TempDir dir;
  fs::create_symlink("loop", dir.file("loop"));
  FoldersMadeHere made;
  try {
    made.make("-o", dir.file("loop/b"));
    FAIL() << "made a folder below a loop of links";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a loop of symbolic links"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("loop")));
}

}  // namespace
}  // namespace memrel
