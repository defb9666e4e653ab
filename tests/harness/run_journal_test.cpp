// The run journal as a file: what a killed runner leaves is read back, and nothing else is.
#include "harness/execution/run_journal.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include "platform/durable_append.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

const nlohmann::json kRun = {{"backends", {"host-malloc"}}, {"cell_timeout_s", 300}};
const nlohmann::json kContext = {{"started", "2026-01-01T00:00:00Z"}};

CellResult cell(const std::string& workload) {
  CellResult c;
  c.backend = "host-malloc";
  c.workload = workload;
  c.status = "ok";
  c.reason = std::string("stderr said \xff\xfe");  // not UTF-8: a journal line all the same
  return c;
}

TEST(RunJournal, ARecordThatCannotBeWrittenWholeIsCutOffAgain) {
  // The fourth pass: past `ulimit -f` a record was written in part (and memrel died of SIGXFSZ).
  // Now the write fails (EFBIG), the part is cut off, and the records before it stay whole.
  testing::TempDir dir;
  std::string path = dir.file("run.json.journal");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    RunJournal journal = RunJournal::start(path, kRun, kContext);
    journal.record(0, cell("a"));
    struct stat before {};
    stat(path.c_str(), &before);
    rlimit limit{static_cast<rlim_t>(before.st_size + 16),
                 static_cast<rlim_t>(before.st_size + 16)};
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      journal.record(1, cell(std::string(4096, 'b')));
      _exit(3);  // written past the limit: the test cannot tell
    } catch (const std::runtime_error& e) {
      struct stat after {};
      stat(path.c_str(), &after);
      _exit(after.st_size == before.st_size &&
                    std::string(e.what()).find("File too large") != std::string::npos
                ? 0
                : 1);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  JournalContent content = read_journal(path);
  EXPECT_EQ(content.cells.size(), 1u);
}

TEST(RunJournal, EveryRecordIsOnDiskWhenRecordReturns) {
  testing::TempDir dir;
  std::string path = dir.file("run.json.journal");
  {
    RunJournal journal = RunJournal::start(path, kRun, kContext);
    journal.record(0, cell("a"));
    JournalContent now = read_journal(path);  // before the journal is closed
    ASSERT_EQ(now.cells.size(), 1u);
    journal.record(2, cell("c"));
  }
  JournalContent content = read_journal(path);
  EXPECT_EQ(content.run, kRun);
  EXPECT_EQ(content.context, kContext);
  ASSERT_EQ(content.cells.size(), 2u);
  EXPECT_EQ(content.cells.at(0).workload, "a");
  EXPECT_EQ(content.cells.at(2).workload, "c");
}

TEST(RunJournal, ALastLineCutShortIsLeftOutAndCutOnResume) {
  testing::TempDir dir;
  std::string path = dir.file("run.json.journal");
  RunJournal::start(path, kRun, kContext).record(0, cell("a"));
  std::string whole = testing::read_text(path);
  testing::write_text(path, whole + R"({"index": 1, "cell": {"schema": "memrel.ce)");
  JournalContent content = read_journal(path);
  EXPECT_EQ(content.cells.size(), 1u);
  EXPECT_EQ(content.whole_bytes, whole.size());
  RunJournal::resume(path, content).record(1, cell("b"));
  EXPECT_EQ(read_journal(path).cells.size(), 2u);
}

TEST(RunJournal, AnExistingJournalIsNeverStartedOver) {
  testing::TempDir dir;
  std::string path = dir.file("run.json.journal");
  RunJournal::start(path, kRun, kContext).record(0, cell("a"));
  EXPECT_THROW(RunJournal::start(path, kRun, kContext), ResultsError);
  EXPECT_EQ(read_journal(path).cells.size(), 1u);
}

// The tenth adversarial pass, c5-two-runs-same-out-at-once: a journal made by another process
// between the look for one and the exclusive create was "cannot create (File exists)", which the
// command line took for a failure of the machine (exit 4). It is another writer's: FileInUse.
TEST(DurableAppendFile, AFileMadeByAnotherProcessJustNowIsInUse) {
  testing::TempDir dir;
  const std::string path = dir.file("j.json.journal");
  { std::ofstream(path) << ""; }
  EXPECT_THROW(DurableAppendFile::create_new(path, "{}\n"), FileInUse);
}

TEST(RunJournal, DamageIsOneLineNamingTheFileAndLine) {
  testing::TempDir dir;
  std::string path = dir.file("run.json.journal");
  auto error_of = [&](const std::string& text) {
    testing::write_text(path, text);
    try {
      read_journal(path);
    } catch (const ResultsError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string header =
      nlohmann::json({{"schema", kJournalSchema}, {"run", kRun}, {"context", kContext}}).dump() +
      "\n";
  std::string record = nlohmann::json({{"index", 0}, {"cell", to_json(cell("a"))}})
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                       "\n";
  EXPECT_EQ(error_of(""), path +
                              ": holds no cell (a run killed as it began leaves this): run again "
                              "without --resume, which replaces it");
  EXPECT_EQ(error_of("{\"cont"), path +
                                     ": holds no cell (a run killed as it began leaves this): "
                                     "run again without --resume, which replaces it");
  // Not memrel's (its header begins with "context"): said so, as where a run would start it.
  const std::string not_ours =
      path + ": is not a journal memrel wrote: move it away (it is where the journal goes)";
  EXPECT_EQ(error_of("{\"schema\""), not_ours);
  EXPECT_EQ(error_of("{\"schema\": \"memrel.results/1\"}\n"), not_ours);
  EXPECT_EQ(error_of("{\n  \"schema\": \"memrel.journal/1\"\n}\n"), not_ours);
  EXPECT_EQ(error_of(header + "{oops\n"), path + ": line 2: malformed JSON at byte 2");
  EXPECT_EQ(error_of(header + record + record), path + ": line 3: cell 0 recorded twice");
  EXPECT_EQ(error_of(header + "{\"index\": -1, \"cell\": {}}\n"),
            path + ": line 2: not a cell record ({\"index\": N, \"cell\": {...}})");
  // A start time that is no date: the resume wrote it into the results, which `history add`
  // then refused (the twentieth adversarial pass, c5-journal-context-started-garbage).
  // Nor one that begins as a date and is none (the forty-third adversarial pass,
  // c5-journal-started-bad-date-resumed-history-refuses).
  for (const std::string& bad : {std::string("garbage"), std::string("2026-02-30T99:99:99Z"),
                                 std::string("2026-01-01T00:00:00Zjunk")}) {
    nlohmann::json garbage = kContext;
    garbage["started"] = bad;
    EXPECT_EQ(
        error_of(nlohmann::json({{"schema", kJournalSchema}, {"run", kRun}, {"context", garbage}})
                     .dump() +
                 "\n"),
        path + ": line 1: context: \"started\" must be a UTC time (YYYY-MM-DDTHH:MM:SSZ)")
        << bad;
  }
}

// The seventieth adversarial pass, c5-resume-live-after-journal-replaced: a live run's journal
// replaced by a copy (an editor's save by rename) is a file no run locks, and a --resume ran the
// cells again beside the live run. The header names the run's process, which is asked.
TEST(RunJournal, AJournalWhoseRunStillGoesIsNeitherResumedNorReplaced) {
  testing::TempDir dir;
  const std::string path = dir.file("run.json.journal");
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t run = fork();
  ASSERT_GE(run, 0);
  if (run == 0) {  // the live run: its journal started, no cell finished yet
    close(ready[0]);
    RunJournal journal = RunJournal::start(path, kRun, kContext);
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char started = 0;
  ASSERT_EQ(read(ready[0], &started, 1), 1);
  close(ready[0]);
  const std::string copy = dir.file("copy");
  testing::write_text(copy, testing::read_text(path));
  ASSERT_EQ(std::rename(copy.c_str(), path.c_str()), 0);

  JournalContent content = read_journal(path);
  ASSERT_TRUE(content.writer.has_value());
  EXPECT_EQ(content.writer->pid, run);
  try {
    RunJournal::resume(path, content);
    ADD_FAILURE() << "the journal of a live run was resumed";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": in use by a run that is still going (process " +
                                         std::to_string(run) + ", whose journal was replaced"),
              std::string::npos)
        << e.what();
  }
  // Nor replaced by a fresh run as "holding no cell" (which let two runs run at once).
  try {
    RunJournal::start(path, kRun, kContext);
    ADD_FAILURE() << "the journal of a live run was started over";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": in use by a run that is still going");
  }
  EXPECT_EQ(read_journal(path).writer, content.writer);

  kill(run, SIGKILL);
  ASSERT_EQ(waitpid(run, nullptr, 0), run);
  // Ended: resumed, and the resume names itself as the journal's writer from then on.
  RunJournal::resume(path, read_journal(path)).record(0, cell("a"));
  EXPECT_EQ(read_journal(path).writer, this_process_identity());
}

// A pid is reused: a writer is its pid and the tick it started at, so a journal whose run ended
// is resumed although another process now has the pid.
TEST(RunJournal, AnotherProcessWithTheWritersPidIsNotTheWriter) {
  testing::TempDir dir;
  const std::string path = dir.file("run.json.journal");
  std::optional<ProcessIdentity> self = this_process_identity();
  ASSERT_TRUE(self.has_value());
  nlohmann::json header = {{"schema", kJournalSchema}, {"run", kRun}, {"context", kContext}};
  header["writer"] = {{"pid", getppid()}, {"start_ticks", 1}, {"boot", self->boot}};
  testing::write_text(path, header.dump() + "\n");
  JournalContent content = read_journal(path);
  ASSERT_TRUE(content.writer.has_value());
  EXPECT_EQ(content.writer->pid, getppid());
  EXPECT_NO_THROW(RunJournal::resume(path, content));
  // A writer of another shape is damage, named as such.
  header["writer"] = {{"pid", -1}, {"start_ticks", 1}, {"boot", self->boot}};
  testing::write_text(path, header.dump() + "\n");
  try {
    read_journal(path);
    ADD_FAILURE() << "a writer of pid -1 was read";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ": line 1: \"writer\" must be {\"pid\": N, \"start_ticks\": N, \"boot\": "
                  "\"ID\"} (the process that wrote it)");
  }
}

TEST(RunJournal, ACellUnavailableThenIsRecordedAgainByTheResumeThatRanIt) {
  // A --resume runs an `unavailable` cell again (its tool may be installed now); the journal then
  // holds both records, and a later resume reads the second. A cell that ran is recorded once.
  testing::TempDir dir;
  std::string path = dir.file("run.json.journal");
  auto line = [](const CellResult& c) {
    return nlohmann::json({{"index", 0}, {"cell", to_json(c)}})
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  };
  CellResult unavailable = cell("a");
  unavailable.status = "unavailable";
  unavailable.reason = "the framework is not installed";
  std::string header =
      nlohmann::json({{"schema", kJournalSchema}, {"run", kRun}, {"context", kContext}}).dump() +
      "\n";
  testing::write_text(path, header + line(unavailable) + line(unavailable) + line(cell("a")));
  JournalContent content = read_journal(path);
  ASSERT_EQ(content.cells.size(), 1u);
  EXPECT_EQ(content.cells.at(0).status, "ok");
  testing::write_text(path, header + line(unavailable) + line(cell("a")) + line(cell("a")));
  try {
    read_journal(path);
    ADD_FAILURE() << "a cell that ran, recorded twice, was read";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": line 4: cell 0 recorded twice");
  }
}

TEST(RunJournal, AMismatchSaysWhatDiffers) {
  EXPECT_EQ(journal_mismatch(kRun, kRun), "");
  nlohmann::json other = kRun;
  other["cell_timeout_s"] = 60;
  EXPECT_EQ(journal_mismatch(kRun, other), "\"cell_timeout_s\" differs (journal 300, now 60)");
  other = kRun;
  other["gpus"] = 2;
  EXPECT_EQ(journal_mismatch(kRun, other), "\"gpus\" is not in the journal");
  // A field of the journal's that this run lacks is named too (the fiftieth adversarial pass,
  // c5-resume-without-shard-unnamed-field: a --shard journal resumed without --shard).
  EXPECT_EQ(journal_mismatch(other, kRun), "\"gpus\" is in the journal (2) and not in this run");
}

}  // namespace
}  // namespace memrel
