"""Writes the report: plots (PNG + SVG), report.md and index.html, from inputs already read and
validated by load.py, into a folder that folder.py puts in place whole."""

import datetime
import errno
import importlib
import multiprocessing
import os
import concurrent.futures
import concurrent.futures.process
import threading
from concurrent.futures import InvalidStateError, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import memrel_outputs.stopping

from . import folder, matplotlib_config_folder, site
from .document import Grid, Heading, Image, Para, to_html, to_markdown


@dataclass
class Inputs:
    runs: list                                    # load.Run
    cells: list                                   # load.Cell, labelled
    bench: list = field(default_factory=list)     # load.BenchFile
    verdict: object = None                        # gate_verdict.GateVerdict (memrel compare --json)
    timelines: list = None                        # "backend/workload" to draw; None: every cell
    jobs: int = 1                                 # processes rendering plots
    history: object = None                        # history.History (--history DB)
    history_nights: int = 14                      # the index lists change points of these nights
    read: list = field(default_factory=list)      # every file read: no stale folder holding one is removed


def _render(job, out_dir):
    module = importlib.import_module(f"{__package__}.{job.module}")
    return getattr(module, job.function)(*job.args, out_dir=out_dir)


def render(jobs, out_dir, processes):
    """Renders every job, in worker processes when there are several (matplotlib draws in one
    thread: a report of many cells takes seconds per core). Returns the plots.Plot of each job."""
    processes = max(1, min(processes, len(jobs), _workers_the_descriptors_allow()))
    if processes == 1:
        return [_render(job, out_dir) for job in jobs]
    # fork: the workers inherit matplotlib already imported (its font cache loaded), and
    # nothing in this process holds threads or locks a child could inherit mid-use.
    # matplotlib's config folder, if one of ours is needed, made here once, not once per worker.
    matplotlib_config_folder.prepare()
    # And the plots (matplotlib with them) imported here, in the main thread: the pool's thread
    # imported them as it unpickled the first result, and matplotlib_defaults takes the process
    # to "/" while matplotlib is imported; the main thread's relative paths then pointed there.
    for module in {job.module for job in jobs}:
        importlib.import_module(f"{__package__}.{module}")
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = None
    thread_failures = _PoolThreadFailures()
    try:
        # The workers are forked, and the pool's threads started, by the first submit.
        with memrel_outputs.stopping.deferred_while_starting_workers():
            try:
                pool = ProcessPoolExecutor(max_workers=processes, mp_context=context,
                                           initializer=memrel_outputs.stopping.die_with_parent,
                                           initargs=(os.getpid(),))
            except OSError:  # no semaphores here (some containers lack /dev/shm)
                pass
            else:
                futures = [pool.submit(_render, job, out_dir) for job in jobs]
        if pool is None:  # draw in this process
            thread_failures.uninstall()
            return [_render(job, out_dir) for job in jobs]
        plots = _results(pool, futures, thread_failures)
    except OSError as e:
        # Out of descriptors for a worker's pipes (`ulimit -n` 14 to 22 on two cores): the pool
        # is given up and every chart drawn here, as when no pool can be made at all. It failed,
        # exit 4, where a lower limit drew the report (the fifty-second adversarial pass,
        # c8-report-nofile-14-to-22-fails-13-works).
        if pool is not None:
            _abandon(pool)
        thread_failures.uninstall()
        if e.errno not in (errno.EMFILE, errno.ENFILE):
            raise
        return [_render(job, out_dir) for job in jobs]
    except BaseException:
        if pool is None:
            thread_failures.uninstall()
            raise
        _abandon(pool)
        raise
    pool.shutdown(wait=True)
    thread_failures.uninstall()
    return plots


class _PoolThreadFailures:
    """What the pool's own thread died of, kept from the terminal and raised in the main thread
    (_results). That thread died of a MemoryError under `ulimit -v 180000` (the first line of its
    traceback printed, the rest out of memory), and the report waited for ever on futures no one
    would set (the twenty-third pass's CI run, test_a_reports_chart_worker_that_runs_out_is_one_line);
    stopped while it drew, its last words came instead of memrel's line (the twenty-third
    adversarial pass, c9-sig*-report-pool-delays). Installed before the pool starts; taken off
    once every chart is in, and kept when the pool is abandoned."""

    def __init__(self):
        self.failures = []
        self._previous = threading.excepthook
        threading.excepthook = self._hook

    def _hook(self, args):
        if isinstance(args.thread, concurrent.futures.process._ExecutorManagerThread):
            self.failures.append(args.exc_value)
        else:
            self._previous(args)

    def uninstall(self):
        threading.excepthook = self._previous


def _results(pool, futures, thread_failures):
    """Each future's result, in order; the failure of the pool's own thread raised here."""
    pending = set(futures)
    while pending:
        _, pending = concurrent.futures.wait(pending, timeout=0.5,
                                             return_when=concurrent.futures.FIRST_EXCEPTION)
        if thread_failures.failures:
            raise thread_failures.failures[0]
        if any(f.done() and f.exception() is not None for f in futures):
            break
        thread = getattr(pool, "_executor_manager_thread", None)
        if pending and thread is not None and not thread.is_alive():
            raise BrokenProcessPool("the pool's own thread ended before the charts were drawn")
    return [f.result() for f in futures]


def _quiet_about_abandoned_futures():
    """The pool's own thread, finding its workers gone, sets an exception on futures that map's
    iterator cancelled as the first failure reached it: InvalidStateError, and Python printed that
    thread's traceback before memrel's one line (a report on a full disk: the twenty-third
    adversarial pass, c8-fulldisk-report-pool-traceback). Installed before the workers are ended:
    the pool is being abandoned. That thread's other failures are still printed."""
    previous = threading.excepthook

    def hook(args):
        if not issubclass(args.exc_type, InvalidStateError):
            previous(args)

    threading.excepthook = hook


def _forget_the_pools_thread(pool):
    """Waits for the pool's own thread to end (its workers are dead: it ends at once) and takes it
    off concurrent.futures' list of threads to wake as the interpreter exits: that wake-up wrote
    to the thread's pipe, closed by then, and printed "Exception ignored ... Bad file descriptor"
    after memrel's one line (the twenty-third adversarial pass, c8-fulldisk-report-pool-traceback;
    a race of Python 3.11's executor)."""
    thread = getattr(pool, "_executor_manager_thread", None)
    if thread is None:
        return
    thread.join(5)
    if not thread.is_alive():
        getattr(concurrent.futures.process, "_threads_wakeups", {}).pop(thread, None)


# Descriptors this process keeps free to draw a chart (a font, the file written, matplotlib's
# caches), and what each worker of the pool holds here (its pipes, its sentinel, its share of the
# queues' and the wakeup's): counted under `ulimit -n` on two cores, with room to spare.
_DRAWING_DESCRIPTORS = 8
_DESCRIPTORS_PER_WORKER = 4
_POOL_DESCRIPTORS = 8


def _workers_the_descriptors_allow():
    """How many workers the open-files limit leaves room for, beside what is open now and what
    drawing in this process needs: a pool started under `ulimit -n` 14 to 22 ran out for its
    second worker, or for a chart, and the report failed, exit 4, where a lower limit (no pool
    at all) drew it (the fifty-second adversarial pass, c8-report-nofile-14-to-22-fails-13-works).
    """
    import resource

    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit == resource.RLIM_INFINITY:
        return 1 << 16
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:  # no /proc: the pool's own failure is said as it comes
        return 1 << 16
    spare = limit - open_now - _DRAWING_DESCRIPTORS - _POOL_DESCRIPTORS
    return max(1, spare // _DESCRIPTORS_PER_WORKER)


def _abandon(pool):
    """Ends the pool's workers now rather than waiting for their plots; what they drew goes with
    the temporary folder, or is drawn again."""
    # Not `with pool`, whose exit waits for the pool first: a worker started before a second
    # could not be (`ulimit -n 16`, no descriptor for its pipe) waited for work for ever, and the
    # report with it, its error said (the eighteenth adversarial pass,
    # c8-ulimit-nofile-report-hangs).
    # SIGKILL, not SIGTERM: a worker still starting turned SIGTERM into a Python exception
    # there, and multiprocessing printed its traceback.
    # Waited for, dead: a worker killed while it wrote a chart went on writing for a moment,
    # into the temporary folder being removed, which then stayed (the twenty-second
    # adversarial pass, c9-sig*-report-delay-sweep).
    _quiet_about_abandoned_futures()
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.kill()
    for process in processes:
        process.join(5)
    pool.shutdown(wait=False, cancel_futures=True)
    _forget_the_pools_thread(pool)


def default_jobs():
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


def _images(blocks):
    for b in blocks:
        if isinstance(b, Image):
            yield b
        elif isinstance(b, Grid):
            yield from b.images


def _demoted(blocks):
    """A page's blocks one heading level down, for report.md."""
    return [Heading(b.level + 1, b.text) if isinstance(b, Heading) else b for b in blocks]


def build(inputs, out_dir):
    """Renders every plot and page (site.py) into out_dir (which must exist and be empty), the data
    files beside them, and report.md: the index (verdicts first) followed by every page."""
    if inputs.runs:
        pages, items, _ = site.pages(inputs, out_dir)
    else:  # a history alone: its index, its pages
        pages, items = [site.Page("index.html", "memrel history", [])], []
    trends = []
    if inputs.history is not None:
        from . import history_pages

        trends = history_pages.pages(inputs.history)
        # The index opens with what changed, then today's verdicts (when there are results).
        pages[0].blocks[:0] = history_pages.index_blocks(inputs.history, inputs.history_nights)
        pages[1:1] = trends
    images = [i for p in pages for i in _images(p.blocks)]
    for image, plot in zip(images, render([i.plot for i in images], out_dir, inputs.jobs)):
        image.plot = plot
    if inputs.runs:
        pages.append(site.downloads_page(out_dir))
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    stamp = Para(f"Generated {now} by memrel report. Bytes: MiB = 2^20 B, exact bytes with them; times in µs. "
                 "Metric definitions: docs/metrics.md.")
    nav = site.nav_links(any(p.file == "traces.html" for p in pages), any(p.file == "latency.html" for p in pages))
    if not inputs.runs:
        nav = [site.Link("What changed", "index.html")]
    if trends:
        nav[1:1] = [site.Link(f"History: {p.file[8:-5]}", p.file) for p in trends]
    for page in pages:
        with open(os.path.join(out_dir, page.file), "w", encoding="utf-8") as f:
            f.write(to_html(page.title, page.blocks + [stamp], site_nav=nav, contents=page.file != "index.html"))
    md = list(pages[0].blocks)
    for page in pages[1:]:
        md += [Heading(2, page.title)] + _demoted(page.blocks)
    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write(to_markdown(pages[0].title, md + [stamp]))
    return items


def write(inputs, out_dir):
    """Builds the report and puts it in place of out_dir (folder.write_atomically). Returns the
    folder and the verdicts."""
    held = {}
    out = folder.write_atomically(out_dir, lambda tmp: held.update(items=build(inputs, tmp)),
                                  inputs.read)
    return out, held["items"]
