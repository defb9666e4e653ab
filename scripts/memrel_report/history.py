"""The results history as the site draws it (memrel report --history DB): every series of the
database (Python's sqlite3, through scripts/memrel_history's own reader) laid out over the nights,
and the change points of scripts/memrel_history (Apache Otava), computed in Otava's virtual
environment: the report's Python has matplotlib, Otava's has its pinned numpy and scipy, and
neither gets the other's packages."""

import functools
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field

import memrel_outputs.stopping
from memrel_outputs.file_name_text import as_text
from memrel_outputs.user_folders import xdg_folder

from . import load

# Each figure the verdicts ask about, and how it reads: (group key, title, unit, better).
GROUPS = {
    "release_effectiveness": ("release", "Does a release give memory back?", "fraction", "higher"),
    "residual_bytes": ("residual", "What stays held after the last release?", "bytes", "lower"),
    "overhead_ratio": ("overhead", "How much does it reserve for what was asked?", "ratio", "lower"),
    "peak_reserved": ("peak-reserved", "How much does it reserve at its peak?", "bytes", "lower"),
    "latency": ("latency", "How fast are allocation and release?", "ns", "lower"),
}


@dataclass
class Series:
    metric: str              # SUBJECT:FIGURE
    machine: str             # machine_id; '' for runs without a fingerprint
    group: str
    backend: str
    values: dict             # night -> value (the night's last run)
    runs: dict               # run id -> night
    changes: list = field(default_factory=list)   # change point dicts (memrel_history --json)


@dataclass
class History:
    path: str
    nights: list             # YYYY-MM-DD, every night any run started, in order
    series: list             # Series, in groups the site draws
    changes: list            # every change point, drawn or not
    otava_note: str = None   # why change points are missing, when they are


def group_of(metric):
    figure = metric.rsplit(":", 1)[-1]
    if figure.startswith("median_latency_ns") or figure == "real_time_ns":
        return "latency"
    return figure if figure in GROUPS else None


def backend_of(metric, kind):
    """A results subject is backend/workload (a workload's name may hold '/': 'a/b' on
    host-malloc was drawn as a backend 'a', the seventeenth adversarial pass,
    c6-history-site-workload-slash-*, so the run's kind says which it is); a benchmark's is
    operation/backend/mode/size/..."""
    subject = metric.rsplit(":", 1)[0]
    if kind == "results":
        return subject.split("/", 1)[0]
    parts = subject.split("/")
    return parts[1] if len(parts) >= 3 else parts[0]


def otava_python():
    """The interpreter of `memrel history changes` (cli/history_command.cpp changes_python)."""
    chosen = os.environ.get("MEMREL_HISTORY_PYTHON")
    if chosen:
        return chosen
    cache = xdg_folder("XDG_CACHE_HOME", ".cache")
    if cache is None:
        return None
    venv = os.path.join(cache, "memrel", "otava", "bin", "python")
    return venv if os.access(venv, os.X_OK) else None


class InterpreterError(Exception):
    """MEMREL_HISTORY_PYTHON names no Python 3 interpreter: the machine's setting, not the
    history's fault, exit 4 (the tenth adversarial pass: /bin/echo was "internal error:
    JSONDecodeError", /bin/ls an exit 2 blaming the database). str() is the line to print."""


def _interpreter_problem(python):
    """"" when PYTHON runs as Python 3 (the question cli/python_probe.cpp asks), else what it did."""
    try:
        r = subprocess.run([python, "-I", "-c",
                            "import sys; sys.stdout.write('memrel-python-%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True, errors="replace", timeout=60,
                           stdin=subprocess.DEVNULL)
    except OSError as e:
        return f"cannot be started ({e.strerror or e})"
    except subprocess.TimeoutExpired:
        return "did not answer within 60 s"
    version = r.stdout.removeprefix("memrel-python-").split(".")
    # ASCII digits: str.isdigit() takes '²', which int() refuses ("internal error: ValueError":
    # the forty-second adversarial pass, c8-history-python-superscript-version-internal-error).
    if r.stdout.startswith("memrel-python-3.") and len(version) == 2 and \
            re.fullmatch("[0-9]{1,4}", version[1], flags=re.ASCII) and int(version[1]) >= 9:
        return ""
    # A signal as a signal: "exit -11" is no process's status (the seventy-fifth adversarial
    # pass, c8-report-history-python-signal-said-as-exit-minus-11).
    how = f"exit {r.returncode}" if r.returncode >= 0 else f"died of signal {-r.returncode}"
    return f"is not a Python 3.9 or later ({how}, said {r.stdout[:40]!r})"


def change_points(path):
    """(change points, note): the note says why there are none to show when Otava could not run."""
    python = otava_python()
    if python is None:
        return [], "change points not computed: Apache Otava is not installed (scripts/install-deps)"
    problem = _interpreter_problem(python)
    if problem and os.environ.get("MEMREL_HISTORY_PYTHON"):
        raise InterpreterError(f"MEMREL_HISTORY_PYTHON ({python}) {problem}: set it to the Python "
                               "that has Apache Otava, or unset it")
    if problem:  # the Otava environment of scripts/install-deps, broken: the report goes on
        return [], f"change points not computed: {python} {problem}; run scripts/install-deps"
    scripts = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # As memrel starts every Python part (cli/python_module.cpp, python_module_argv): isolated,
    # through memrel_entry.py, never `-m`, which put the working folder first on the module path
    # (a ./memrel_history package ran, and the user site's .pth files: the tenth adversarial
    # pass, c3-report-history-otava-*).
    entry = os.path.join(scripts, "memrel_entry.py")
    # Ends with the report, however the report ends (its parent-death signal).
    die = functools.partial(memrel_outputs.stopping.die_with_parent, os.getpid())
    # Where memrel_entry.py says it ran, as memrel asks every Python part (cli/python_module.cpp):
    # an interpreter that ran none of memrel's code gave "internal error: JSONDecodeError", its
    # traceback on the report's pages, or `{}` taken for change points (the fifteenth adversarial
    # pass, c8-histpython-*).
    with tempfile.TemporaryFile() as mark:
        # --db=PATH, one word: a database named -h.sqlite was read as an option (the twenty-third
        # adversarial pass, c10-report-history-dash-name).
        try:
            r = subprocess.run([python, "-I", entry, "memrel_history", f"--db={path}", "--json"],
                               capture_output=True, text=True, timeout=600, preexec_fn=die,
                               pass_fds=(mark.fileno(),),
                               env=dict(os.environ, MEMREL_ENTRY_FD=str(mark.fileno())))
        except subprocess.TimeoutExpired:
            # Said as the page's note, not a traceback (noted by the seventy-fifth pass).
            return [], f"change points not computed: {python} did not finish within 600 s"
        mark.seek(0)
        said = mark.read(4096)
    ran = said.startswith(b"memrel_entry.py ran\n")
    chosen = bool(os.environ.get("MEMREL_HISTORY_PYTHON"))
    ended = f"exited {r.returncode}" if r.returncode >= 0 else f"ended by signal {-r.returncode}"
    returncode = r.returncode
    # Exit 0 where memrel's code did not end with 0: a wrapper lost how it ended (as memrel
    # reads it, cli/python_module.cpp; the twenty-seventh adversarial pass,
    # c8-python-wrapper-loses-status-exit0-nothing-written).
    last_word = re.search(rb"\nmemrel_entry\.py ended (-?[0-9]+)\n", said)
    if ran and returncode == 0 and (last_word is None or int(last_word.group(1)) != 0):
        returncode = int(last_word.group(1)) if last_word else 4
        ended = f"exited 0, but memrel's code ended with {returncode}" if last_word else \
            "exited 0, but memrel's code did not finish"
    if not ran:
        if chosen:
            raise InterpreterError(f"MEMREL_HISTORY_PYTHON ({python}) {ended} without running "
                                   "memrel's code (scripts/memrel_entry.py): set it to the Python "
                                   "that has Apache Otava, or unset it")
        return [], f"change points not computed: {python} {ended} without running memrel's code"
    if returncode == 2:
        raise load.InputError(path, (r.stderr.strip().splitlines() or ["unusable history"])[-1]
                              .removeprefix("memrel: "))
    lines = [line for line in r.stderr.splitlines() if line.startswith("memrel")]
    if returncode != 0:  # memrel's own line, never a traceback, goes on the page
        said = lines[-1] if lines else f"the history part {ended}"
        return [], f"change points not computed: {said[:200]}"
    try:
        points = json.loads(r.stdout)
    except ValueError:
        points = None
    if not isinstance(points, list) or not all(
            isinstance(p, dict) and isinstance(p.get("metric"), str) and
            isinstance(p.get("machine"), str) for p in points):
        raise InterpreterError(f"{python}: the history part wrote no list of change points "
                               "(memrel_history --json)")
    return points, None


def _kinds_of_metrics(db, path):
    """{metric: 'results' or 'benchmark'}, the kind of the runs that hold it ('results' where any
    results run does)."""
    import sqlite3

    try:
        rows = db.execute("SELECT DISTINCT f.metric, r.kind FROM figures f "
                          "JOIN runs r ON r.id = f.run_id").fetchall()
    except sqlite3.DatabaseError as e:
        raise load.InputError(path, f"not a readable memrel history ({e})") from None
    kinds = {}
    for metric, kind in rows:
        if kinds.get(metric) != "results":
            kinds[metric] = kind
    return kinds


def read(path):
    """The history at path, or load.InputError (exit 2) for one that is not a usable history."""
    from memrel_history import changes as reader

    try:
        db = reader.open_history(path)
        raw = reader.series_of(db, path, [], "")
    except reader.UsageError as e:
        raise load.InputError(path, str(e).removeprefix(f"{path}: ")) from None
    for runs in raw.values():
        for run_id, started, _, _, _ in runs:
            # SQLite keeps any type in any column: a night is the date a run started.
            if not isinstance(started, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", started):
                raise load.InputError(path, f"run {run_id}: started {started!r} is not an ISO 8601 time; "
                                      "not a memrel history")
    kinds = _kinds_of_metrics(db, path)
    points, note = change_points(path)
    nights = sorted({started[:10] for runs in raw.values() for _, started, _, _, _ in runs})
    by_key = {}
    for p in points:
        by_key.setdefault((p["metric"], p["machine"]), []).append(p)
    series = []
    for (metric, machine), runs in sorted(raw.items()):
        group = group_of(metric)
        if not group:
            continue
        s = Series(metric, machine, group, backend_of(metric, kinds.get(metric, "results")),
                   {started[:10]: value for _, started, _, _, value in runs},
                   {run_id: started[:10] for run_id, started, _, _, _ in runs},
                   by_key.get((metric, machine), []))
        series.append(s)
    return History(as_text(path), nights, series, points, note)
