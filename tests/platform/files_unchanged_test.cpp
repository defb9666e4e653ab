// A file read at the start and read again later is known to be the same file or not, however
// it was changed: in place with its size and time put back, by a rename over it, or removed.
#include "platform/files_unchanged.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "test_support.hpp"

namespace memrel {
namespace {

using testing::TempDir;
using testing::write_text;

// A file's times move in the kernel's coarse clock ticks (a few ms): an edit within the tick of
// the look before is one no stat can tell, and the run's window for it is its first milliseconds.
void next_clock_tick() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

TEST(FilesUnchanged, AFileLeftAloneIsUnchanged) {
  TempDir dir;
  write_text(dir.file("w.json"), "{}");
  FilesUnchanged files;
  files.watch(dir.file("w.json"));
  EXPECT_EQ(files.first_changed(), "");
  EXPECT_EQ(files.first_changed(), "");
}

TEST(FilesUnchanged, AnEditOfTheSameSizeWithItsTimePutBackIsSeen) {
  TempDir dir;
  const std::string path = dir.file("w.json");
  write_text(path, "{\"a\":1}");
  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  FilesUnchanged files;
  files.watch(path);
  next_clock_tick();
  write_text(path, "{\"a\":2}");
  // `touch -d` back to the old modification time: the status-change time still moves.
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  EXPECT_EQ(files.first_changed(), path);
}

TEST(FilesUnchanged, AFileRenamedOverOrRemovedIsChanged) {
  TempDir dir;
  write_text(dir.file("a"), "same");
  write_text(dir.file("b"), "x");
  FilesUnchanged files;
  files.watch(dir.file("b"));
  files.watch(dir.file("a"));
  write_text(dir.file("a.new"), "same");  // another inode, whatever the tick
  ASSERT_EQ(std::rename(dir.file("a.new").c_str(), dir.file("a").c_str()), 0);
  EXPECT_EQ(files.first_changed(), dir.file("a"));
  std::filesystem::remove(dir.file("b"));
  EXPECT_EQ(files.first_changed(), dir.file("b"));  // the first watched one first
}

TEST(FilesUnchanged, AVersionSeenBeforeIsTheOneCompared) {
  TempDir dir;
  const std::string path = dir.file("w.json");
  write_text(path, "old");
  const std::optional<FileVersion> seen = file_version(path);
  write_text(path, "new, longer");  // between the first read and the watch
  FilesUnchanged files;
  files.watch(path, seen);
  EXPECT_EQ(files.first_changed(), path);
}

}  // namespace
}  // namespace memrel
