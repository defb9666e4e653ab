// SIGINT, SIGTERM and SIGHUP as a request to stop, asked for by a loop that checks it: the loop
// ends its children, keeps what is done and removes what is temporary, which a process killed
// outright cannot do.
#pragma once

#include <stdexcept>
#include <string>

namespace memrel {

// Thrown by code that saw the request and has cleaned up its own part; the command line exits
// with 128 + signal (cli/exit_codes.hpp), as a shell reports a process ended by that signal.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& what) : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// While one exists, SIGINT, SIGTERM and SIGHUP only record themselves; the previous handlers come
// back when it goes. Not nestable.
class InterruptRequests {
 public:
  InterruptRequests();
  ~InterruptRequests();
  InterruptRequests(const InterruptRequests&) = delete;
  InterruptRequests& operator=(const InterruptRequests&) = delete;

  // The first signal received, or 0.
  static int received();
};

// "SIGINT", "SIGTERM", "SIGHUP", any other by its abbreviation ("SIGSEGV"), else "signal N".
std::string signal_name(int signal);

}  // namespace memrel
