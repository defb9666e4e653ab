"""A request to stop reaches the report while its plot workers start and while it waits for them
(the twenty-first adversarial pass's open fault, c9-sig*-report-watch; docs/inputs.md,
"Twenty-first pass"): SIGTERM as `memrel report` began drawing went unanswered, memrel killed the
renderer after 5 s, and its partial DIR.tmp-PID stayed. Each test fails on the code before the fix.

Both run the renderer's own render() in a child Python, with a plot job that needs no data."""

import re
import signal
import subprocess
import sys
import textwrap

from conftest import SCRIPTS

# The child: the report's signal handling, a module of cheap plot jobs, then render() on 4 jobs
# in 2 worker processes. It exits 143 when the request to stop reached it (Stopped), 0 when the
# report went on as if none had been made.
_CHILD = textwrap.dedent("""
    import os, signal, sys, threading, time, types
    sys.path.insert(0, {scripts!r})
    import memrel_outputs.stopping as stopping
    from memrel_report import report, site

    def draw(seconds, out_dir):
        time.sleep(seconds)
        return seconds

    jobs_module = types.ModuleType("memrel_report.cheap_jobs")  # forked workers inherit it
    jobs_module.draw = draw
    sys.modules["memrel_report.cheap_jobs"] = jobs_module
    stopping.stop_on_signals()
    {setup}
    jobs = [site.PlotJob("cheap_jobs", "draw", ({seconds},)) for _ in range(4)]
    try:
        report.render(jobs, ".", 2)
    except stopping.Stopped:
        sys.exit(143)
    {after}
    sys.exit(0)
""")


def _render_in_a_child(setup, after="", seconds=0):
    code = _CHILD.format(scripts=SCRIPTS, setup=setup,
                         after=after, seconds=seconds)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_a_stop_request_as_the_workers_are_forked_is_not_lost():
    """Python runs fork's handlers as it forks a worker: the Stopped raised in one (logging's
    release of its lock, in the report) was reported as "ignored", the request was lost, and
    logging's lock stayed taken. Here the request comes the moment before the first fork, and a
    handler after it calls Python code, as logging's does."""
    setup = textwrap.dedent("""
        parent, asked = os.getpid(), []

        def ask_to_stop_before_the_first_fork():
            if os.getpid() == parent and not asked:
                asked.append(True)
                os.kill(parent, signal.SIGTERM)

        def some_python_code():
            return len(asked)

        def after_the_fork():
            some_python_code()

        os.register_at_fork(before=ask_to_stop_before_the_first_fork, after_in_parent=after_the_fork)
    """)
    r = _render_in_a_child(setup)
    assert r.returncode == 143, (r.returncode, r.stderr[-2000:])
    assert "Exception ignored" not in r.stderr, r.stderr[-2000:]


def test_the_pools_own_threads_never_take_a_stop_request():
    """The kernel gives a process's signal to any thread that does not block it: given to the
    pool's threads, it never woke the main thread, which waits for their results in a lock.
    While the workers draw, every thread but the main one (and this test's) blocks SIGTERM,
    SIGINT and SIGHUP."""
    setup = textwrap.dedent("""
        main_thread, takers = threading.get_native_id(), []

        def threads_taking_stop_requests():
            me = threading.get_native_id()
            deadline = time.monotonic() + 30  # the pool's two threads started (a busy machine)
            while len(os.listdir("/proc/self/task")) < 4 and time.monotonic() < deadline:
                time.sleep(0.01)
            for task in os.listdir("/proc/self/task"):
                if int(task) in (main_thread, me):
                    continue
                with open(f"/proc/self/task/{task}/status") as f:
                    blocked = int(next(l for l in f if l.startswith("SigBlk:")).split()[1], 16)
                if any(not blocked >> (n - 1) & 1 for n in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)):
                    takers.append(task)
            print("threads", len(os.listdir("/proc/self/task")), "taking:", takers)

        threading.Thread(target=threads_taking_stop_requests).start()
    """)
    r = _render_in_a_child(setup, after="sys.exit(1 if takers else 0)", seconds=2)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    # The pool's two threads (its manager and its queue's feeder) were there to be looked at.
    threads = int(re.search(r"threads (\d+) taking: \[\]", r.stdout).group(1))
    assert threads >= 4, r.stdout
