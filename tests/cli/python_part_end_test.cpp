// How memrel reads a Python part's end beside the part's own last word (memrel_entry.py's
// "memrel_entry.py ended N"): an exit status that is not the one memrel's code chose is not taken
// at its word, and a stop the part was sent alone is said in the part's one line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <iostream>
#include <sstream>
#include <string>

#include "cli/exit_codes.hpp"
#include "cli/python_module.hpp"

namespace memrel::cli {
namespace {

// A wait status for an exit with `code`.
int exited(int code) { return code << 8; }

struct Said {
  int code;
  std::string err;
};

Said exit_code_of(int status, const std::string& held, std::optional<int> ended) {
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  const int code = python_exit_code("memrel trace", "python3", status, 0, held, true, ended);
  std::cerr.rdbuf(saved);
  return {code, captured.str()};
}

TEST(PythonPartEnd, AnExitZeroOfAWrapperIsNotTakenForTheRefusalItHid) {
  const std::string held = "memrel trace: bad.pickle: truncated or malformed pickle\n";
  const Said said = exit_code_of(exited(0), held, 2);
  EXPECT_EQ(said.code, exit_code::kUnusableInput);
  EXPECT_EQ(said.err, held);  // the part's one line, nothing added
}

TEST(PythonPartEnd, AnExitZeroWithoutTheLastWordIsAFailureSaid) {
  const Said said = exit_code_of(exited(0), "", std::nullopt);
  EXPECT_EQ(said.code, exit_code::kInternalError);
  EXPECT_NE(said.err.find("did not finish"), std::string::npos) << said.err;
  EXPECT_EQ(said.err.find('\n'), said.err.size() - 1) << said.err;
}

TEST(PythonPartEnd, AnExitZeroThatIsTheLastWordIsSuccess) {
  EXPECT_EQ(exit_code_of(exited(0), "", 0).code, exit_code::kSuccess);
}

TEST(PythonPartEnd, AStopSentToThePartAloneIsItsOneLine) {
  const std::string held = "memrel trace: stopped by SIGTERM; nothing written\n";
  const Said said = exit_code_of(exited(128 + 15), held, 128 + 15);
  EXPECT_EQ(said.code, exit_code::kInternalError);
  EXPECT_EQ(said.err, held);
}

// Once memrel's code has said how it ended, any other exit is a wrapper's: said so, with the
// outputs in place, whatever the number (the sixty-first adversarial pass,
// c8-python-wrapper-exit3-after-success-says-failed). Without that word it is the part's failure.
TEST(PythonPartEnd, AnExitOf143ThatMemrelsCodeDidNotChooseIsAWrappersChange) {
  const Said said = exit_code_of(exited(128 + 15), "", 0);
  EXPECT_EQ(said.code, exit_code::kInternalError);
  EXPECT_NE(said.err.find("exited 143, but memrel's code ended with 0, its outputs in place"),
            std::string::npos)
      << said.err;
}

TEST(PythonPartEnd, AnExitOf3WithoutTheLastWordIsAFailureOfThePart) {
  const Said said = exit_code_of(exited(3), "", std::nullopt);
  EXPECT_EQ(said.code, exit_code::kInternalError);
  EXPECT_NE(said.err.find("none of memrel's exit codes"), std::string::npos) << said.err;
}

// A stop memrel passed on that came as the part was ending: never "it was still starting" once
// memrel's code had run (the twenty-eighth adversarial pass,
// c9-trace-import-late-sigterm-says-starting).
TEST(PythonPartEnd, AStopAsThePartEndsIsNotSaidAsOneAtItsStart) {
  auto said_for = [](bool entry_ran, std::optional<int> ended) {
    std::ostringstream captured;
    std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
    const int code =
        python_exit_code("memrel trace", "python3", exited(1), 15, "", entry_ran, ended);
    std::cerr.rdbuf(saved);
    EXPECT_EQ(code, exit_code::kInterruptedBase + 15);
    return captured.str();
  };
  EXPECT_NE(said_for(true, 0).find("its outputs in place"), std::string::npos);
  const std::string unsaid = said_for(true, std::nullopt);
  EXPECT_EQ(unsaid.find("still starting"), std::string::npos) << unsaid;
  EXPECT_NE(said_for(false, std::nullopt).find("still starting"), std::string::npos);
}

}  // namespace
}  // namespace memrel::cli
