#include "platform/stop_signals_held.hpp"

#include <pthread.h>

#include <csignal>
#include <initializer_list>

namespace memrel {

StopSignalsHeld::StopSignalsHeld() {
  sigset_t stops;
  sigemptyset(&stops);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, signal);
  // This thread's mask; memrel's one other thread, a Python part's stderr relay, blocks them
  // for good (child_stderr_relay.cpp), so a signal sent to the process waits here.
  pthread_sigmask(SIG_BLOCK, &stops, &before_);
}

StopSignalsHeld::~StopSignalsHeld() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

}  // namespace memrel
