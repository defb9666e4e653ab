#include "platform/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "platform/stop_signals_held.hpp"
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

// While the content is written no name holds it: a SIGKILL then left OUT.tmp.PID for good (the
// forty-second adversarial pass, c9-*-sigkill-tmp-left). A watcher lists the folder throughout a
// 64 MiB write; any temporary name it sees must already hold the whole content (it is named only
// once whole, for the two system calls before its rename).
TEST(AtomicFile, NoNameHoldsAPartlyWrittenOutput) {
  testing::TempDir dir;
  const std::string path = dir.file("out.json");
  const std::string content(64 << 20, 'x');
  std::atomic<bool> done{false};
  std::atomic<long long> partial_seen{0}, looks{0};
  std::thread watcher([&] {
    while (!done) {
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(dir.path(), ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("out.json.tmp.", 0) != 0) continue;
        struct stat st {};
        if (::stat(e.path().c_str(), &st) == 0 &&
            static_cast<std::size_t>(st.st_size) < content.size())
          ++partial_seen;
      }
      ++looks;
    }
  });
  write_file_atomically(path, content);
  done = true;
  watcher.join();
  EXPECT_GT(looks.load(), 0);
  EXPECT_EQ(partial_seen.load(), 0) << "a temporary name held a partly written output";
  EXPECT_EQ(std::filesystem::file_size(path), content.size());
}

TEST(AtomicFile, AWriteMakesItsMissingFoldersAndOneUnderAFileMakesNothing) {
  testing::TempDir dir;
  write_file_atomically(dir.file("new/sub/out.json"), "x");
  EXPECT_EQ(testing::read_text(dir.file("new/sub/out.json")), "x");
  testing::write_text(dir.file("afile"), "mine");
  EXPECT_THROW(write_file_atomically(dir.file("afile/sub/out.json"), "x"), std::exception);
  EXPECT_EQ(testing::read_text(dir.file("afile")), "mine");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2);  // new/ and afile, nothing else
}

TEST(AtomicFile, AnOutputRefusedMakesNoFolder) {
  testing::TempDir dir;
  // A name too long for the file system is refused before its folders are made.
  const std::string path = dir.file("made/deeper/" + std::string(300, 'n'));
  EXPECT_THROW(write_file_atomically(path, "x"), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(dir.file("made")));
}

}  // namespace
}  // namespace memrel

namespace memrel {
namespace {

TEST(OutputRule, ALinkAFifoAndADeviceAreRefusedAndNothingIsWrittenThroughThem) {
  testing::TempDir dir;
  std::string target = dir.file("target");
  testing::write_text(target, "keep");
  std::string link_path = dir.file("link");
  ASSERT_EQ(symlink(target.c_str(), link_path.c_str()), 0);
  EXPECT_THROW(write_file_atomically(link_path, "x"), OutputError);
  EXPECT_EQ(testing::read_text(target), "keep");
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(write_file_atomically(fifo, "x"), OutputError);
  EXPECT_THROW(check_output_file("/dev/null"), OutputError);
  EXPECT_THROW(check_output_file(dir.path().string()), OutputError);
  EXPECT_NO_THROW(check_output_file(dir.file("absent")));
  EXPECT_NO_THROW(check_output_file(target));
  // Only the target and the two refused names: no temporary left behind.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    entries += !e.path().empty();
  EXPECT_EQ(entries, 3);
}

TEST(OutputRule, AnInputIsToldByIdentityNotBySpelling) {
  testing::TempDir dir;
  std::string input = dir.file("in.json");
  testing::write_text(input, "{}");
  std::string hard_link = dir.file("other-name.json");
  ASSERT_EQ(link(input.c_str(), hard_link.c_str()), 0);
  EXPECT_THROW(check_output_file(hard_link, {input}), OutputError);
  EXPECT_THROW(
      check_output_file(dir.path().string() + "/../" + dir.path().filename().string() + "/in.json",
                        {input}),
      OutputError);
  // A file directly in an input folder is one of its inputs.
  EXPECT_THROW(check_output_file(input, {dir.path().string()}), OutputError);
  EXPECT_NO_THROW(check_output_file(dir.file("new.json"), {input, dir.path().string()}));
}

TEST(OutputRule, AFolderOutputHoldsNoInput) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "a" / "b");
  std::string input = (dir.path() / "a" / "b" / "in.json").string();
  testing::write_text(input, "{}");
  EXPECT_THROW(check_output_folder(dir.file("a"), {input}), OutputError);
  EXPECT_THROW(check_output_folder(dir.path().string(), {input}), OutputError);
  EXPECT_NO_THROW(check_output_folder(dir.file("a/c"), {input}));
  std::string link_path = dir.file("link");
  ASSERT_EQ(symlink(dir.file("a").c_str(), link_path.c_str()), 0);
  EXPECT_THROW(check_output_folder(link_path, {}), OutputError);
}

// Each kind said as what it is: a regular file given for a folder was "is not a regular file,
// not a folder" (issue 23).
TEST(OutputRule, EveryKindIsNamedRightInTheMessage) {
  testing::TempDir dir;
  std::string file = dir.file("results.json");
  testing::write_text(file, "{}");
  auto message = [](auto check) {
    try {
      check();
    } catch (const OutputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { check_output_folder(file, {}, "--out"); }),
            "--out " + file + ": is a file; --out wants a folder");
  EXPECT_EQ(message([&] { check_output_folder(file, {}); }),
            file + ": is a file; a folder is wanted");
  EXPECT_EQ(message([&] { check_output_file(dir.path().string(), {}, "-o"); }),
            "-o " + dir.path().string() +
                ": is a folder, not a regular file; refusing to write "
                "over it");
  EXPECT_EQ(message([&] { check_output_folder("/dev/null", {}, "--out"); }),
            "--out /dev/null: is a character device, not a folder; refusing to write over it");
}

}  // namespace
}  // namespace memrel

namespace memrel {
namespace {

TEST(OutputRule, AHardLinkOfAFileInAnInputFolderIsThatInput) {
  // The fourth pass: `compare b c --summary sum.md`, sum.md a hard link of c/run.json, was taken
  // (only an output spelled inside the folder was refused).
  testing::TempDir dir;
  std::filesystem::create_directory(dir.file("c"));
  testing::write_text(dir.file("c/run.json"), "keep");
  ASSERT_EQ(link(dir.file("c/run.json").c_str(), dir.file("sum.md").c_str()), 0);
  EXPECT_THROW(check_output_file(dir.file("sum.md"), {dir.file("c")}, "--summary"), OutputError);
  testing::write_text(dir.file("other.md"), "x");  // a file of its own: fine
  EXPECT_NO_THROW(check_output_file(dir.file("other.md"), {dir.file("c")}, "--summary"));
}

TEST(OutputRule, TheRunningProgramIsAnInputOfEveryCommand) {
  // The fourth pass: `./memrel run -o ./memrel` replaced the running binary, exit 0.
  const std::vector<std::string> program = program_inputs();
  ASSERT_FALSE(program.empty());
  EXPECT_THROW(check_output_file(program.front()), OutputError);
  EXPECT_THROW(
      check_output_folder(std::filesystem::path(program.front()).parent_path().string(), {}),
      OutputError);
}

volatile std::sig_atomic_t stops_seen = 0;
void count_stop(int) { stops_seen = stops_seen + 1; }

// The twenty-first adversarial pass, c9-sig*-compare-*-tmp: a SIGTERM while a file was written
// under its temporary name ended memrel there, the temporary file left for good. Held, the signal
// waits until the file is whole (or gone) and the block ends.
TEST(StopSignalsHeld, AStopSignalWaitsUntilTheBlockEnds) {
  struct sigaction counting {
  }, before{};
  counting.sa_handler = count_stop;
  sigemptyset(&counting.sa_mask);
  ASSERT_EQ(sigaction(SIGTERM, &counting, &before), 0);
  stops_seen = 0;
  {
    const StopSignalsHeld held;
    raise(SIGTERM);
    EXPECT_EQ(stops_seen, 0);
  }
  EXPECT_EQ(stops_seen, 1);
  sigaction(SIGTERM, &before, nullptr);
}

}  // namespace
}  // namespace memrel
