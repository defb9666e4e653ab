"""Command line: python3 -m memrel_report [options] --out DIR RESULTS.json [RESULTS.json ...]
              python3 -m memrel_report --history DB [options] --out DIR [RESULTS.json ...]

Exit codes: 0 written; 2 unusable input (a missing, empty, malformed or wrong-schema file, a bad
option, an --out that is not a report folder), nothing written; 4 internal error.
"""

import argparse
import errno
import importlib.util
import os
import signal
import sys
from concurrent.futures.process import BrokenProcessPool

from . import folder, gate_verdict, input_rules, load, prepare
from . import history as history_module

import memrel_outputs.standard_output
import memrel_outputs.stopping
from memrel_outputs.address_space import user_limit_bytes
from memrel_outputs.error_text import error_text
from memrel_outputs.one_line import one_line
import memrel_help  # the help layout of every memrel subcommand (scripts/memrel_help.py)

# report --jobs above this is refused: each job is a process, and no machine drawing plots uses more.
MAX_JOBS = 256

# report (and with it matplotlib, half a second to import) is imported once the inputs have
# been read: an unusable file is refused at once.

EXIT_OK, EXIT_INPUT, EXIT_INTERNAL = 0, 2, 4


def parser():
    p = memrel_help.ArgumentParser(
        prog="memrel report",
        description="Plots and a self-contained report folder (index.html, report.md, PNG + SVG) "
                    "from memrel results files (schema memrel.results/1), and with --history the "
                    "trends and change points of the results history.",
        epilog="Exit codes: 0 written; 2 unusable input (missing, empty, malformed or wrong-schema "
               "file, bad option, --out not a report folder), nothing written; 4 internal error. "
               "See docs/report.md.")
    p.add_argument("results", nargs="*", metavar="RESULTS.json",
                   help="results of memrel run (optional with --history)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="report folder to write (replaced whole if it holds an earlier report and "
                        "nothing else)")
    p.add_argument("--bench", action="append", default=[], metavar="BENCH.json",
                   help="Google Benchmark JSON from memrel_bench, for the latency plot (repeatable)")
    p.add_argument("--baseline-verdict", metavar="FILE.json",
                   help="the verdicts memrel compare --json wrote, shown as the gate verdict")
    p.add_argument("--timeline", action="append", metavar="BACKEND/WORKLOAD",
                   help="draw the memory timeline of this cell only (repeatable; default: every cell)")
    p.add_argument("--history", metavar="DB",
                   help="the results history (memrel history add): trend pages and change points")
    p.add_argument("--history-nights", type=memrel_help.whole_number, default=None, metavar="N",
                   help="with --history: the index lists the change points of the last N nights "
                        "(default 14)")
    p.add_argument("--jobs", type=memrel_help.whole_number, default=None, metavar="N",
                   help=f"processes drawing plots, 1 to {MAX_JOBS} (default: the cores available, at most 8)")
    return p


def _address_space_limit_note():
    """Beside a crash or a MemoryError: the limit most likely behind it, when one is set."""
    limit = user_limit_bytes()
    if limit is None:
        return ""
    return f" under an address-space limit of {limit >> 20} MiB (ulimit -v: likely out of memory)"


def _cpu_time_limit_note():
    """Beside a chart worker that died: the CPU-time limit, when one is set; the worker's death
    was said without it (the fifty-third adversarial pass, c8-cpu-limit-python-part-not-named)."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
    if soft == resource.RLIM_INFINITY:
        return ""
    return f" under a CPU-time limit of {soft} s (ulimit -t: likely that limit; raise it)"


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)  # usage errors exit 2 (argparse)
    # SIGTERM and SIGHUP unwind like Ctrl-C: the temporary folder goes, the workers end.
    memrel_outputs.stopping.stop_on_signals()
    # Room for walking a document as deep as the readers take (input_rules.MAX_JSON_DEPTH, checked
    # on the text first): a few Python frames a level. Python frames, not C stack: json.loads
    # itself never goes deeper than that check allows.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * input_rules.MAX_JSON_DEPTH + 1000))
    # A worker per job: 99999999 would try to start that many processes.
    if args.jobs is not None and not 1 <= args.jobs <= MAX_JOBS:
        p.error(f"--jobs: must be a whole number from 1 to {MAX_JOBS}")
    # An option of the history's pages without a history did nothing, without a word (the
    # seventeenth adversarial pass, c10-report-history-nights-without-history).
    if args.history_nights is not None and not args.history:
        p.error("--history-nights: only with --history (it chooses the history's nights)")
    if args.history_nights is None:
        args.history_nights = 14
    if not 1 <= args.history_nights <= 100_000:
        p.error("--history-nights: must be a whole number from 1 to 100000")
    if not args.results and not args.history:
        p.error("give RESULTS.json, --history DB, or both")
    # The machine's part, said before any input is read: without matplotlib the report stopped
    # with "internal error: ModuleNotFoundError" (the tenth adversarial pass). Found, not
    # imported: matplotlib reads its config folder once, when first imported, and that folder is
    # chosen later (matplotlib_config_folder).
    if importlib.util.find_spec("matplotlib") is None:
        print(f"memrel report: matplotlib is not importable with {sys.executable}: run "
              "scripts/install-deps, or set MEMREL_PYTHON to a Python that has it", file=sys.stderr)
        return EXIT_INTERNAL
    try:
        # One results file given twice (by two spellings, or a link) would count its run twice;
        # one --bench file twice, its benchmarks (the twenty-second adversarial pass,
        # c6-report-bench-same-file-twice).
        for given in (args.results, args.bench):
            for i, path in enumerate(given):
                for earlier in given[:i]:
                    if os.path.exists(path) and os.path.exists(earlier) and os.path.samefile(path, earlier):
                        raise load.InputError(path, f"the same file as {earlier}, given twice")
        runs = [load.load_results(path) for path in args.results]
        # A copy is the same run too, known as `history add` knows it, by its bytes: reported
        # twice, as "#1" and "#2" (the fifty-first adversarial pass,
        # c6-report-byte-identical-copy).
        for i, run in enumerate(runs):
            for earlier in runs[:i]:
                if run.text_sha256 == earlier.text_sha256:
                    raise load.InputError(run.path, f"the same run as {earlier.path} (the same "
                                                    "bytes), given twice")
        cells = load.collect_cells(runs)
        if not cells and not args.history:
            raise load.InputError(args.results[0], "no cells in any results file: nothing to report")
        bench = [load.load_bench(path) for path in args.bench]
        # One file per backend (docs/report.md): the second of one backend's files had its
        # benchmarks dropped without a word, the first's drawn (the twenty-second adversarial
        # pass, c6-report-two-bench-files-one-backend).
        held_by = {}
        for b in bench:
            for backend in sorted(prepare.bench_backends(b)):
                if backend in held_by:
                    raise load.InputError(b.path, f"holds benchmarks of {backend}, as "
                                                  f"{held_by[backend]} does: --bench takes one "
                                                  "file per backend")
            held_by.update({backend: b.path for backend in prepare.bench_backends(b)})
        verdict = gate_verdict.load_verdict(args.baseline_verdict) if args.baseline_verdict else None
        # A trace and a workload of one name, from two runs (one run refuses the pair): drawn as
        # one workload, one phase chart of both cells' marks (the twenty-second adversarial pass,
        # c6-report-workload-and-trace-one-name-two-runs).
        # A run's workload is a trace where any of its cells replayed one (a cell that did not run,
        # or the null backend's, holds no replay); a JSON workload where cells ran ok and none did.
        kinds = {}
        for c in cells:
            kind = kinds.setdefault((c.workload, c.run), set())
            if c.raw.get("trace") is not None:
                kind.add("trace")
            elif c.ok:
                kind.add("json")
        replayed = {}
        for (name, run), kind in kinds.items():
            replayed.setdefault(name, {}).setdefault("trace" if "trace" in kind else
                                                      "json" if kind else None, run)
        for name, by_kind in replayed.items():
            if "trace" in by_kind and "json" in by_kind:
                raise load.InputError(args.results[by_kind["trace"]], f"workload {name!r} is a "
                                      f"trace replayed here and a JSON workload in "
                                      f"{args.results[by_kind['json']]}: one report page for two "
                                      "workloads; rename one")
        # Two traces of one name from two runs, told by what each replay says of its trace:
        # drawn as one trace page (the twenty-fourth adversarial pass,
        # c6-report-two-traces-one-name-two-runs).
        traces = {}
        for c in cells:
            t = c.raw.get("trace")
            if t is not None:
                shape = (t.get("source_format"), t.get("events"), t.get("allocs"), t.get("frees"),
                         t.get("peak_requested_event"))
                traces.setdefault(c.workload, {}).setdefault(shape, c.run)
        for name, shapes in traces.items():
            if len(shapes) > 1:
                (one, first), (other, second) = list(shapes.items())[:2]
                raise load.InputError(args.results[second], f"workload {name!r} is a trace of "
                                      f"{other[1]} events here and of {one[1]} in "
                                      f"{args.results[first]}: two traces of one name, one "
                                      "report page; rename one")
        for kind, names, name_of in (("workloads", prepare.workloads(cells), lambda c: c.workload),
                                     ("backends", prepare.backends(cells), lambda c: c.backend)):
            pair = prepare.colliding_names(names)
            if pair:  # names are made unique; only one crafted to equal another's form is left
                # Each name with the file it came from: the line named the first file alone,
                # as if it held both (the forty-ninth adversarial pass, c6-report-twin-wrong-file).
                source = {}
                for c in cells:
                    source.setdefault(name_of(c), args.results[c.run])
                first, second = (source.get(name, args.results[0]) for name in pair)
                raise load.InputError(second, f"{kind} {pair[0]!r} ({first}) and {pair[1]!r} "
                                      f"({second}) would share one report page "
                                      f"({prepare.slug(pair[1])}, letters' case aside): rename one")
        try:
            prepare.select_timelines(cells, args.timeline)
        except ValueError as e:
            raise load.InputError("--timeline", e) from None
        history = None
        if args.history:
            history = history_module.read(args.history)
            from . import history_pages

            try:  # refused before any work, as a run's colliding names are
                history_pages.backend_file_parts({s.backend for s in history.series})
            except ValueError as e:
                raise load.InputError(args.history, f"{e}: rename one") from None
        read = args.results + args.bench + [p for p in [args.baseline_verdict, args.history] if p]
        folder.check(args.out, read)  # the output rule: none of them inside --out
        from . import report

        inputs = report.Inputs(runs=runs, cells=cells, bench=bench, verdict=verdict, timelines=args.timeline,
                               jobs=args.jobs or report.default_jobs(), history=history,
                               history_nights=args.history_nights, read=read)
        try:
            out, items = report.write(inputs, args.out)
        except (PermissionError, FileNotFoundError, NotADirectoryError) as e:
            # Where --out cannot be made (a read-only or missing place): the user's to fix, not a
            # bug (the second adversarial pass: `--out /sys/rep` was an internal error).
            raise load.InputError("--out", f"{args.out}: cannot be written ({e.strerror})") from None
        except OSError as e:
            # A read-only file system, as every other writer says it: the place, exit 2 (the
            # twenty-second adversarial pass, c8-outdir-readonly-report: "internal error").
            if e.errno == errno.EROFS:
                raise load.InputError("--out", f"{args.out}: cannot be written ({e.strerror})") from None
            if e.errno not in memrel_outputs.MACHINE_STATE_ERRNOS:
                raise
            if e.errno == errno.EMFILE:
                # Out of descriptors anywhere (a module's import as often as a file of the
                # report): the limit, named, not "cannot write" a file that was never the cause
                # (the forty-ninth adversarial pass, c9-report-emfile-words).
                print(f"memrel report: {error_text(e.errno)}; nothing written", file=sys.stderr)
                return EXIT_INTERNAL
            # A full disk or a file size limit: the machine's state, said with the place, as every
            # other writer says it; it was "internal error: OSError: [Errno 28]" without one (the
            # thirteenth adversarial pass, c8-disk-full-report-out).
            print("memrel report: " + one_line(f"cannot write the report {args.out} "
                                               f"({e.filename or 'a file in it'}: {e.strerror})")
                  + "; nothing written", file=sys.stderr)
            return EXIT_INTERNAL
    except load.InputError as e:
        print(f"memrel report: {one_line(e)}", file=sys.stderr)
        return EXIT_INPUT
    except history_module.InterpreterError as e:
        print(f"memrel report: {one_line(e)}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("memrel report: interrupted; nothing written", file=sys.stderr)
        return 130
    except memrel_outputs.stopping.Stopped as e:
        print(f"memrel report: stopped by {e.name}; nothing written", file=sys.stderr)
        return 128 + e.signal_number
    except (MemoryError, BrokenProcessPool) as e:
        # The machine's limit, not a bug (the tenth adversarial pass, c8-report-ulimit-v-*): a
        # plotting process that died under `ulimit -v` was "internal error: BrokenProcessPool".
        what = ("ran out of memory" if isinstance(e, MemoryError)
                else "lost a process drawing the charts (it died)")
        note = _address_space_limit_note() or ("" if isinstance(e, MemoryError)
                                               else _cpu_time_limit_note())
        print(f"memrel report: {what}{note}; nothing written", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as e:
        if isinstance(e, OSError) and memrel_outputs.standard_output.writing_failed():
            raise  # stdout failed: said by memrel_entry.py, in its one line
        if memrel_outputs.stopping.requested is None and not isinstance(e, RuntimeError):
            print(f"memrel report: internal error: {type(e).__name__}: {' '.join(str(e).split())}",
                  file=sys.stderr)
            return EXIT_INTERNAL
        if memrel_outputs.stopping.requested is not None:
            # Asked to stop while a C extension was being imported: its ImportError is the stop
            # (the twenty-third pass's CI run, test_a_signal_to_report_leaves_no_folder_and_no_worker).
            number = memrel_outputs.stopping.requested
            print(f"memrel report: stopped by {signal.Signals(number).name}; nothing written",
                  file=sys.stderr)
            return 128 + number
        if "can't start new thread" not in str(e):
            print(f"memrel report: internal error: {type(e).__name__}: {' '.join(str(e).split())}",
                  file=sys.stderr)
            return EXIT_INTERNAL
        # No memory for a thread's stack (the plot pool's, under `ulimit -v`): out of memory too.
        print(f"memrel report: ran out of memory (no thread could be started)"
              f"{_address_space_limit_note()}; nothing written", file=sys.stderr)
        return EXIT_INTERNAL
    # The answer on the terminal too (stderr: stdout is the folder, for scripts); -q: the path only.
    from .site import verdict_text

    if memrel_help.verbosity(args) >= 0:
        for line in verdict_text(items):
            print(line, file=sys.stderr)
        print(one_line(f"report: {os.path.join(out, 'index.html')}"), file=sys.stderr)
    # Escaped as every line memrel prints: an ESC in --out went to the terminal raw (the sixteenth
    # adversarial pass, c9-report-out-esc-stdout).
    print(one_line(out))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
