// Where memrel finds its files (platform/install_layout): an installed prefix by its data
// folder, a build tree by its marker file, and neither said as such. The end-to-end check, an
// installed memrel with the source tree hidden, is tests/python/test_install.py.
#include "platform/install_layout.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace memrel {
namespace {

namespace fs = std::filesystem;

TEST(InstallLayout, AnInstalledPrefixIsFoundFromItsBinFolder) {
  testing::TempDir dir;
  const fs::path prefix = dir.path() / "opt";
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share/memrel/workloads");
  InstallLayout l = install_layout_for((prefix / "bin").string(), "/home/u", "/data/u");
  EXPECT_TRUE(l.found && l.installed);
  EXPECT_EQ(l.data_dir, (prefix / "share/memrel").string());
  EXPECT_EQ(l.python_dir, (prefix / "share/memrel/python").string());
  EXPECT_EQ(l.library_dir, (prefix / "lib/memrel").string());
  EXPECT_EQ(l.output_dir, "/data/u/memrel");  // the user's data home, never the prefix
  EXPECT_TRUE(l.source_dir.empty());
  // No XDG_DATA_HOME (or a relative one, which the XDG spec says to ignore): ~/.local/share.
  EXPECT_EQ(install_layout_for((prefix / "bin").string(), "/home/u", "rel").output_dir,
            "/home/u/.local/share/memrel");
}

TEST(InstallLayout, ABuildTreeIsFoundByItsMarkerFromAnyFolderBelowIt) {
  testing::TempDir dir;
  const fs::path build = dir.path() / "build";
  fs::create_directories(build / "benchmarks");
  testing::write_text((build / "memrel-build-tree").string(), "/src/memrel\n");
  for (const fs::path& exe : {build, build / "benchmarks"}) {
    InstallLayout l = install_layout_for(exe.string(), "/home/u", "");
    EXPECT_TRUE(l.found && !l.installed) << exe;
    EXPECT_EQ(l.source_dir, "/src/memrel");
    EXPECT_EQ(l.data_dir, "/src/memrel/benchmarks");
    EXPECT_EQ(l.python_dir, "/src/memrel/scripts");
    EXPECT_EQ(l.library_dir, build.string());
    EXPECT_EQ(l.output_dir, "/src/memrel/results");
  }
}

TEST(InstallLayout, AnInstalledPrefixInsideABuildTreeIsTheInstalledOne) {
  testing::TempDir dir;
  testing::write_text(dir.file("memrel-build-tree"), "/src/memrel\n");
  const fs::path prefix = dir.path() / "prefix";
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share/memrel/workloads");
  EXPECT_TRUE(install_layout_for((prefix / "bin").string(), "/home/u", "").installed);
}

TEST(InstallLayout, NeitherIsSaid) {
  testing::TempDir dir;
  InstallLayout l = install_layout_for(dir.path().string(), "/home/u", "");
  EXPECT_FALSE(l.found);
  EXPECT_NE(l.description().find("no installed prefix or build tree"), std::string::npos);
}

// A binary on its own looks beside itself, never in the current folder: the current folder's
// scripts/ ran as memrel's Python parts (the eighth adversarial pass, c1-own-lonebinary-script).
TEST(InstallLayout, ALoneBinaryLooksBesideItselfNotInTheCurrentFolder) {
  testing::TempDir dir;
  InstallLayout l = install_layout_for(dir.path().string(), "/home/u", "");
  EXPECT_EQ(l.python_dir, (dir.path() / "scripts").lexically_normal().string());
  EXPECT_EQ(l.data_dir, (dir.path() / "benchmarks").lexically_normal().string());
}

}  // namespace
}  // namespace memrel
