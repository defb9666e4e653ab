"""SIGTERM and SIGHUP as requests to stop, like Ctrl-C, for memrel's Python parts, and workers
that end with their parent (docs/inputs.md, "Leftovers").

A Python process ends on SIGTERM or SIGHUP without running a `finally`, so a half-written report
folder stayed beside --out and its plot workers, orphaned, drew on. stop_on_signals() turns both
into the exception Stopped, which unwinds through every cleanup as KeyboardInterrupt does;
die_with_parent() asks the kernel to end a worker when the process that started it ends, however
it ends (SIGKILL runs no code in the parent).
"""

import contextlib
import ctypes
import ctypes.util
import signal

_PR_SET_PDEATHSIG = 1


class Stopped(BaseException):
    """A SIGTERM or SIGHUP received; signal_number says which."""

    def __init__(self, signal_number):
        super().__init__(signal_number)
        self.signal_number = signal_number

    @property
    def name(self):
        return signal.Signals(self.signal_number).name


# The signal asked to stop with, once one was: a Stopped raised inside an extension module's
# initialisation comes out as "ImportError: initialization failed", no longer a Stopped.
requested = None


def _raise(signal_number, frame):
    global requested
    requested = requested or signal_number
    raise Stopped(signal_number)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_on_signals():
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _raise)


@contextlib.contextmanager
def deferred_while_starting_workers():
    """Holds SIGINT, SIGTERM and SIGHUP back in this thread while a worker pool starts; they
    arrive (as Stopped or KeyboardInterrupt) when the block ends. Two ways a request to stop was
    lost without it (the twenty-first adversarial pass, c9-sigTERM-report-watch: the renderer
    ignored it, and memrel killed it after 5 s, its temporary folder left behind):
    - Python runs fork's handlers as it forks a worker; a Stopped raised inside one is reported
      as "ignored", and logging's lock, taken before the fork, stayed taken for good (the pool's
      thread, importing a module that asks for a logger, then waited for ever, and the report
      with it).
    - The kernel gives a process's signal to any thread that does not block it: given to the
      pool's own threads, it never woke the main thread waiting for their results. Threads
      started in this block inherit the mask and keep it, so every later request reaches the
      main thread. Workers unblock the signals themselves (die_with_parent)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def die_with_parent(parent=None):
    """In a worker or a child (a pool's initializer, subprocess's preexec_fn): SIGKILL when its
    parent ends (Linux; elsewhere nothing), the default action for SIGTERM and SIGHUP (a forked
    worker inherits its parent's handlers), and Ctrl-C left to the parent. SIGKILL, not SIGTERM:
    a signal a process may handle does not end one busy in C code. `parent`, the pid of the
    process that started it: if it died before the request was made, end at once."""
    import os

    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Forked while its parent held them back (deferred_while_starting_workers): a worker that
    # blocked SIGTERM outlived a request to stop.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)
