#include "platform/child_stderr_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "platform/error_text.hpp"
#include "platform/machine_state_error.hpp"
#include "platform/one_line_text.hpp"

namespace memrel {
namespace {

// All of `text` to our standard error; nothing when it cannot take it (closed, full): the child's
// words are not worth memrel's life, and the thread has SIGPIPE blocked, so a closed pipe is an
// EPIPE here, not memrel's death.
void write_all_to_stderr(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// How long finish() waits for more once the child has ended: what it wrote before it ended is in
// the pipe already; only a grandchild that kept the pipe open (and would keep it for ever) writes
// after it.
constexpr int kDrainIdleMilliseconds = 50;

bool begins_with_any(std::string_view line, const std::vector<std::string>& starts) {
  for (const std::string& start : starts)
    if (line.substr(0, start.size()) == start) return true;
  return false;
}

}  // namespace

std::string held_part(std::string_view text, const std::vector<std::string>& foreign_starts) {
  for (std::size_t start = 0; start < text.size();) {
    if (begins_with_any(text.substr(start), foreign_starts)) return std::string(text.substr(start));
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return "";
}

ChildStderrRelay::ChildStderrRelay(std::vector<std::string> foreign_starts)
    : foreign_starts_(std::move(foreign_starts)) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0)
    throw MachineStateError("cannot make a pipe: " + error_text(errno));
  read_end_ = OwnedFd(ends[0]);
  write_end_ = OwnedFd(ends[1]);
}

ChildStderrRelay::~ChildStderrRelay() {
  child_ended_ = true;
  if (copier_.joinable()) copier_.join();
}

void ChildStderrRelay::hold_until(std::function<bool()> started) {
  started_ = std::move(started);
  released_ = false;
}

void ChildStderrRelay::child_started() {
  write_end_ = OwnedFd();
  copier_ = std::thread([this] { copy_lines(); });
}

std::string ChildStderrRelay::finish() {
  child_ended_ = true;
  if (copier_.joinable()) copier_.join();
  if (!partial_.empty()) line(partial_);
  partial_.clear();
  if (!released_ && started_()) release();
  if (!released_) return before_start_;
  return held_;
}

void ChildStderrRelay::copy_lines() {
  // SIGPIPE, and the stop signals too: those are the main thread's to take (its handlers, or
  // StopSignalsHeld while it writes a file), never this thread's default death.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&pipe_signal, signal);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  // On the heap: a thread's stack is `ulimit -s`'s size, and at 128 KiB, which memrel accepts,
  // 64 KiB here and the copying below overflowed it (SIGSEGV after the report was written: the
  // thirty-first adversarial pass, c8-report-segfault-at-accepted-stack-limit).
  std::vector<char> buffer(65536);
  while (true) {
    const bool ended = child_ended_;
    pollfd readable{read_end_.get(), POLLIN, 0};
    const int ready = poll(&readable, 1, ended ? kDrainIdleMilliseconds : 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      if (ended) return;  // drained: nothing more came within the idle time
      continue;
    }
    const ssize_t n = read(read_end_.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // every writer has closed its end
    take(buffer.data(), static_cast<std::size_t>(n));
  }
}

void ChildStderrRelay::take(const char* data, std::size_t size) {
  // Only the new bytes are searched for a line's end, and a line longer than kLinePiece goes on
  // in pieces: 1.5 GB of one line was searched again at every read, and held whole (the
  // forty-ninth adversarial pass, c8-python-part-stderr-held-whole: 15 s and 398 MB for 200 MB).
  std::size_t searched = partial_.size();
  partial_.append(data, size);
  std::size_t start = 0;
  for (std::size_t end; (end = partial_.find('\n', searched)) != std::string::npos;
       start = searched = end + 1)
    line(partial_.substr(start, end + 1 - start));
  partial_.erase(0, start);
  if (partial_.size() >= kLinePiece) {
    line(partial_);
    partial_.clear();
  }
}

void ChildStderrRelay::keep_within_bound(std::string& text) {
  if (text.size() <= 2 * kHeldBytes) return;
  // Its last kHeldBytes, from a line's start where there is one: the end of a report says what
  // ended it.
  std::size_t from = text.size() - kHeldBytes;
  const std::size_t next_line = text.find('\n', from);
  if (next_line != std::string::npos && next_line + 1 < text.size()) from = next_line + 1;
  text = std::string(kLeftOut) + text.substr(from);
}

void ChildStderrRelay::line(const std::string& text) {
  if (!released_) {
    if (!started_()) {
      before_start_ += text;
      keep_within_bound(before_start_);
      return;
    }
    release();
  }
  copy_or_hold(text);
}

void ChildStderrRelay::release() {
  released_ = true;
  std::size_t start = 0;
  for (std::size_t end; (end = before_start_.find('\n', start)) != std::string::npos;
       start = end + 1)
    copy_or_hold(before_start_.substr(start, end + 1 - start));
  if (start < before_start_.size()) copy_or_hold(before_start_.substr(start));
  before_start_.clear();
}

void ChildStderrRelay::copy_or_hold(const std::string& line) {
  // As every line memrel prints (one_line_text), its newline kept: an escape sequence in a
  // part's stderr (an interpreter's, a library's) went to the terminal raw (the twenty-third
  // adversarial pass, c8-fakepy-exit2-multiline-ctrl).
  const bool whole = !line.empty() && line.back() == '\n';
  const std::string text =
      one_line_text(std::string_view(line).substr(0, line.size() - whole)) + (whole ? "\n" : "");
  if (!holding_) holding_ = begins_with_any(text, foreign_starts_);
  if (holding_) {
    held_ += text;
    keep_within_bound(held_);
  } else
    write_all_to_stderr(text);
}

}  // namespace memrel
