// A child's standard error, copied to ours line by line as it comes, up to the first line that
// begins a report the child's own code did not write: an interpreter's traceback, "Fatal Python
// error", a library's complaint before it exits. From that line on it is held, and the caller,
// who knows how the child ended, decides: shown (a failure someone must look into) or replaced by
// one line that says what happened (the user's Ctrl-C landed while the interpreter was starting;
// an address-space limit ran out). Without it the user read Python's 50-line traceback of a
// KeyboardInterrupt inside `site`, or of a MemoryError raised while a MemoryError was being said
// (the eleventh adversarial pass, c9-sigINT-during-trace-import; CI, ulimit -v 100000).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/owned_fd.hpp"

namespace memrel {

// What ChildStderrRelay holds of `text`, a child's whole stderr read after it ended (`run -w LOG`
// reads it back whole): from the first line that begins with one of `foreign_starts` on; "" when
// no line does.
std::string held_part(std::string_view text, const std::vector<std::string>& foreign_starts);

class ChildStderrRelay {
 public:
  // `foreign_starts`: the beginnings of the lines from which on the rest is held.
  explicit ChildStderrRelay(std::vector<std::string> foreign_starts);
  ~ChildStderrRelay();
  ChildStderrRelay(const ChildStderrRelay&) = delete;
  ChildStderrRelay& operator=(const ChildStderrRelay&) = delete;

  // The end the child writes to (ChildSpec::stderr_fd); close-on-exec, so that only the child
  // started with it holds a copy once child_started() closes ours.
  int child_end() const { return write_end_.get(); }
  // Holds every line until `started` says the child's own code has begun (an interpreter's
  // start-up is not yet the code memrel runs in it): a wrapper that is no interpreter, or one
  // that cannot open memrel's entry file, wrote its own lines before its exit, and they came out
  // beside memrel's one line that says so (the seventeenth adversarial pass,
  // c8-fakepy-stderr-lines-*, c8-missing-entry). Lines held so when it never began are part of
  // what finish() returns. Called before child_started(); `started` must be safe to call from
  // the copying thread.
  void hold_until(std::function<bool()> started);
  // Closes our copy of the child's end and starts copying.
  void child_started();
  // Once the child has ended: copies what it wrote before it ended (the rest of the pipe; a
  // grandchild that keeps the pipe open is not waited for) and returns what was held, "" when
  // nothing was.
  std::string finish();

 private:
  void copy_lines();
  void take(const char* data, std::size_t size);
  void line(const std::string& text);
  void copy_or_hold(const std::string& text);
  void release();  // the lines held before the start, copied or held as any line
  // What is held stays within 2 * kHeldBytes: past that, only its last kHeldBytes are kept,
  // after kLeftOut. A line longer than kLinePiece is passed on in pieces of about that size.
  static void keep_within_bound(std::string& text);
  static constexpr std::size_t kHeldBytes = std::size_t{1} << 20;
  static constexpr std::size_t kLinePiece = std::size_t{64} << 10;
  static constexpr const char* kLeftOut = "[... earlier output left out ...]\n";

  std::vector<std::string> foreign_starts_;
  OwnedFd read_end_;
  OwnedFd write_end_;
  std::thread copier_;
  std::atomic<bool> child_ended_{false};
  std::string partial_;
  std::string held_;
  bool holding_ = false;
  std::function<bool()> started_;
  std::string before_start_;  // lines written before `started_` said so
  bool released_ = true;
};

}  // namespace memrel
