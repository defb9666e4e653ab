#include "platform/interrupt.hpp"

#include <signal.h>
#include <string.h>  // sigabbrev_np

namespace memrel {
namespace {

volatile sig_atomic_t g_received = 0;
struct sigaction g_previous_int, g_previous_term, g_previous_hup;

void record(int signal) {
  if (g_received == 0) g_received = signal;
}

}  // namespace

InterruptRequests::InterruptRequests() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = record;
  action.sa_flags = SA_RESTART;  // the loops that care poll received(); reads and writes go on
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  // A closed terminal or a logged-out session: a request to stop like the others, so that the
  // temporary traces go and the journal stays (SIGHUP's default would leave both).
  sigaction(SIGHUP, &action, &g_previous_hup);
}

InterruptRequests::~InterruptRequests() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  sigaction(SIGHUP, &g_previous_hup, nullptr);
}

int InterruptRequests::received() { return g_received; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  if (signal == SIGHUP) return "SIGHUP";
  // Any other by the C library's abbreviation (SIGSEGV: what a crash under `ulimit -v` reads as),
  // else its number.
  if (const char* abbreviation = sigabbrev_np(signal); abbreviation != nullptr)
    return std::string("SIG") + abbreviation;
  return "signal " + std::to_string(signal);
}

}  // namespace memrel
