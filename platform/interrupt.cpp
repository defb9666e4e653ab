#include "platform/interrupt.hpp"

#include <signal.h>

namespace memrel {
namespace {

volatile sig_atomic_t g_received = 0;
struct sigaction g_previous_int, g_previous_term;

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
}

InterruptRequests::~InterruptRequests() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int InterruptRequests::received() { return g_received; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace memrel
