// The spellings of an output path that the system and a lexical reading take for two places are
// refused: tests/data/path_spellings.json, which scripts/memrel_outputs/path_spelling.py is
// checked against too (test_hostile_inputs.py).
#include "platform/path_spelling.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace memrel {
namespace {

namespace fs = std::filesystem;

// The table's layout in a fresh folder, the working folder while it lives.
class Layout {
 public:
  Layout() : saved_(fs::current_path()) {
    char name[] = "/tmp/memrel-spelling-XXXXXX";
    folder_ = mkdtemp(name);
    fs::create_directories(folder_ / "rep" / "sub");
    fs::create_directories(folder_ / "elsewhere" / "deep");
    fs::create_directory_symlink("elsewhere/deep", folder_ / "link");
    fs::current_path(folder_);
  }
  ~Layout() {
    fs::current_path(saved_);
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }

 private:
  fs::path saved_, folder_;
};

TEST(PathSpelling, TheSharedTableOfSpellings) {
  const nlohmann::json table = testing::shared_test_table("path_spellings.json");
  Layout layout;
  for (const auto& row : table.at("cases")) {
    const std::string path = row.at(0), refused = row.at(1);
    const std::string problem = path_spelling_problem(path);
    if (refused.empty())
      EXPECT_EQ(problem, "") << path;
    else
      EXPECT_NE(problem.find(refused), std::string::npos) << path << ": " << problem;
  }
}

}  // namespace
}  // namespace memrel
