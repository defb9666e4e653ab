"""The second round of hostile and careless input (issue 23), for memrel's Python parts and the
command line that runs them: an output that is an input or not a regular file (docs/inputs.md,
"Outputs"), thresholds that would switch a rule off ("Numbers"), code from the working
folder ("Code"), and the importer's own inputs ("The importer's inputs"). Each is refused with exit 2 and one line, and nothing already there is lost."""

import importlib
import importlib.util
import json
import os
import pickle
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys

import pytest

from conftest import HOST_RUN, ROOT, SCRIPTS, memrel_binary

RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
ENTRY = os.path.join(SCRIPTS, "memrel_entry.py")


MEMREL = memrel_binary()
needs_memrel = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/")


def private_copy(tmp_path):
    """A copy of memrel's build tree under tmp_path/copy (the binary, its marker, its Python parts
    and data): stands for an installed memrel, and may be written over without harm to the build
    the other tests use. Its binary is copy/build/ci/memrel."""
    copy = tmp_path / "copy"
    (copy / "build" / "ci").mkdir(parents=True)
    shutil.copytree(os.path.join(ROOT, "scripts"), copy / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "benchmarks"), copy / "benchmarks")
    shutil.copy(MEMREL, copy / "build" / "ci" / "memrel")
    (copy / "build" / "ci" / "memrel-build-tree").write_text(str(copy))
    return copy


def python(package, *args, cwd=ROOT, timeout=300):
    env = dict(os.environ, PYTHONPATH=SCRIPTS, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, ENTRY, package, *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=timeout)


def refused(r, *words, exit_code=2):
    """R ended with EXIT_CODE (2: refused input) and one line on stderr holding every word."""
    assert r.returncode == exit_code, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def scripts_module(name):
    """A module of memrel's Python parts (scripts/), imported as memrel runs it."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def shared_table(name):
    """A table of tests/data that the C++ side is checked against too (test_support.hpp)."""
    with open(os.path.join(ROOT, "tests", "data", name), encoding="utf-8") as f:
        return json.load(f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# --- 1. An output that is an input -----------------------------------------------------------

def test_trace_import_onto_its_own_source_is_refused_by_identity(tmp_path):
    source = tmp_path / "log.csv"
    shutil.copy(RMM_LOG, source)
    before = read(source)
    other_name = tmp_path / "trace.memtrace"
    os.link(source, other_name)
    for out in (tmp_path / "." / "log.csv", other_name):
        refused(python("memrel_trace", "import", source, "-o", out), "is the input")
        assert read(source) == before


def test_report_into_the_folder_holding_its_input_is_refused(tmp_path):
    results = tmp_path / "runs" / "run.json"
    results.parent.mkdir()
    shutil.copy(HOST_RUN, results)
    before = read(results)
    for out in (tmp_path / "runs", tmp_path):
        refused(python("memrel_report", "--out", out, results), "holds the input")
        assert read(results) == before


def test_history_markdown_onto_the_database_is_refused(tmp_path):
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0])
    before = read(db)
    refused(python("memrel_history", "--db", db, "--markdown", db), "--markdown", "is the input")
    assert read(db) == before


# --- 2. Outputs that are not regular files ---------------------------------------------------

@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_trace_import_never_writes_through_a_link_or_into_a_fifo(tmp_path, kind):
    target = tmp_path / "precious"
    target.write_text("keep\n")
    out = tmp_path / "out.memtrace"
    if kind == "symlink":
        os.symlink(target, out)
    else:
        os.mkfifo(out)
    refused(python("memrel_trace", "import", RMM_LOG, "-o", out),
            "a symbolic link" if kind == "symlink" else "a FIFO")
    assert target.read_text() == "keep\n"
    assert os.path.islink(out) if kind == "symlink" else not os.path.isfile(out)


def test_report_out_that_is_a_link_to_a_folder_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    os.symlink(real, link)
    refused(python("memrel_report", "--out", link, HOST_RUN), "a symbolic link")


def test_history_markdown_through_a_link_is_refused(tmp_path):
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0])
    target = tmp_path / "precious"
    target.write_text("keep\n")
    link = tmp_path / "changes.md"
    os.symlink(target, link)
    refused(python("memrel_history", "--db", db, "--markdown", link), "a symbolic link")
    assert target.read_text() == "keep\n"


# --- 4. Numbers that switch a rule off --------------------------------------------------------

def make_history(path, values, text_value=None):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (id, started, source, machine_id, memrel_commit)")
    db.execute("CREATE TABLE figures (run_id, metric, value)")
    for i, v in enumerate(values, 1):
        db.execute("INSERT INTO runs VALUES (?, ?, 'r.json', 'm', 'c')", (i, f"2026-01-0{i}"))
        db.execute("INSERT INTO figures VALUES (?, 'x/y:peak', ?)", (i, v))
    if text_value is not None:
        db.execute("UPDATE figures SET value = ? WHERE run_id = 2", (text_value,))
    db.execute("PRAGMA application_id = 1835363698")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()


@pytest.mark.parametrize("option,value", [
    ("--max-pvalue", "nan"), ("--max-pvalue", "inf"), ("--max-pvalue", "0"), ("--max-pvalue", "-1"),
    ("--min-magnitude", "nan"), ("--min-magnitude", "inf"), ("--min-magnitude", "-0.5"),
    ("--window", "0"), ("--window", "-3"), ("--min-runs", "0"),
])
def test_history_thresholds_are_range_checked(tmp_path, option, value):
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0])
    refused(python("memrel_history", "--db", db, option, value), option)


def test_a_text_figure_in_the_history_is_one_line_not_a_traceback(tmp_path):
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0], text_value="fast")
    refused(python("memrel_history", "--db", db), "not a finite number")


@pytest.mark.parametrize("table,column,literal,shown", [
    ("figures", "metric", "x'ff00'", "a blob"), ("figures", "metric", "7", "7"),
    ("runs", "machine_id", "x'00'", "a blob"), ("runs", "started", "x'00'", "a blob"),
    ("runs", "source", "NULL", "NULL"), ("runs", "memrel_commit", "x'00'", "a blob"),
])
def test_a_history_column_of_the_wrong_type_is_one_line_naming_its_row(tmp_path, table, column,
                                                                         literal, shown):
    """t12, t72 (fifth pass): a blob metric name gave a 20-line traceback ('<' not supported
    between 'bytes' and 'str') and exit 4, in `history changes` and `report --history`."""
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0])
    con = sqlite3.connect(db)
    con.execute(f"UPDATE {table} SET {column} = {literal} WHERE rowid = 2")
    con.commit()
    con.close()
    row = "figures row 2" if table == "figures" else "runs row 2"
    what = f"{row}, column {column}: {shown} is not text; not a memrel history"
    refused(python("memrel_history", "--db", db, "--min-runs", "1"), what)
    refused(python("memrel_report", "--out", tmp_path / "rep", "--history", db), what)
    assert not (tmp_path / "rep").exists()


def test_report_out_empty_is_one_line(tmp_path):
    refused(python("memrel_report", "--out", "", HOST_RUN), "--out", "an empty value")


# --- 3. Code from the working folder ----------------------------------------------------------

STANDARD_MODULES = ["runpy", "json", "argparse", "csv", "pickle", "struct", "hashlib",
                    "datetime", "gc", "tempfile", "math", "io", "sqlite3", "shutil"]


def plant(folder):
    """A module named after each standard one, each leaving a mark if it runs."""
    for name in STANDARD_MODULES:
        (folder / f"{name}.py").write_text(
            f"open({str(folder / ('RAN-' + name))!r}, 'w').close()\n")


def marks(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("RAN-"))


def test_the_entry_runs_nothing_from_the_working_folder(tmp_path):
    plant(tmp_path)
    shutil.copy(RMM_LOG, tmp_path / "log.csv")
    r = python("memrel_trace", "import", "log.csv", "-o", "out.memtrace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert marks(tmp_path) == []


@needs_memrel
def test_memrel_trace_import_and_run_run_nothing_from_the_working_folder(tmp_path):
    plant(tmp_path)
    shutil.copy(RMM_LOG, tmp_path / "log.csv")
    env = dict(os.environ, MEMREL_PYTHON=sys.executable, PYTHONPATH=":relative")
    r = subprocess.run([MEMREL, "trace", "import", "log.csv", "-o", "out.memtrace"], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "run", "-b", "null", "--include-null", "-w", "log.csv",
                        "-o", "run.json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert marks(tmp_path) == []


@needs_memrel
def test_memrel_report_onto_its_input_folder_through_the_binary(tmp_path):
    results = tmp_path / "run.json"
    shutil.copy(HOST_RUN, results)
    env = dict(os.environ, MEMREL_PYTHON=sys.executable, MPLBACKEND="Agg")
    r = subprocess.run([MEMREL, "report", "--out", tmp_path, results], env=env,
                       capture_output=True, text=True, timeout=120)
    refused(r, "holds the input")
    assert read(results) == read(HOST_RUN)


def report_images(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.suffix in (".png", ".svg")}


@pytest.mark.parametrize("planted", ["rc file", "fifo"])
def test_a_matplotlibrc_in_the_working_folder_changes_nothing(tmp_path, planted):
    """c06 (fifth pass): matplotlib reads ./matplotlibrc first; `text.usetex: True` there made the
    report run latex (exit 4), `figure.dpi: 1` drew other charts, a FIFO of that name blocked the
    report for ever. Now the charts are matplotlib's defaults, byte for byte, and nothing runs."""
    clean, work = tmp_path / "clean", tmp_path / "work"
    clean.mkdir()
    work.mkdir()
    if planted == "fifo":
        os.mkfifo(work / "matplotlibrc")
    else:
        (work / "matplotlibrc").write_text("backend: module://evilbackend\ntext.usetex: True\n"
                                           "figure.dpi: 1\nsavefig.dpi: 3\nfont.size: 30\n")
    (work / "evilbackend.py").write_text(f"open({str(work / 'RAN-backend')!r}, 'w').close()\n")
    with open(HOST_RUN, encoding="utf-8") as f:  # one backend's cells: charts enough, and quick
        run = json.load(f)
    run["cells"] = [c for c in run["cells"] if c["backend"] == "host-malloc"]
    results = tmp_path / "run.json"
    results.write_text(json.dumps(run))

    def report(cwd):
        env = dict(os.environ, PYTHONPATH=SCRIPTS, MPLBACKEND="module://evilbackend")
        return subprocess.run([sys.executable, ENTRY, "memrel_report", "--jobs", "2", "--out",
                               str(cwd / "rep"), "--timeline", "host-malloc/huge", str(results)],
                              capture_output=True, text=True, env=env, cwd=cwd, timeout=120)

    r = report(work)
    assert r.returncode == 0, r.stderr
    assert marks(work) == []
    if planted == "rc file":
        assert report(clean).returncode == 0
        images = report_images(clean / "rep")
        assert images and report_images(work / "rep") == images


# --- 7. The importer's own inputs --------------------------------------------------------------

def snapshot_pickle(path, trace=(), settings=None):
    snapshot = {"device_traces": [list(trace)], "segments": []}
    if settings is not None:
        snapshot["allocator_settings"] = settings
    with open(path, "wb") as f:
        pickle.dump(snapshot, f, protocol=4)


def run_limited(*args, cwd=ROOT):
    """The importer under a 20 s time limit, reporting its peak memory (KiB) too."""
    code = ("import resource, subprocess, sys\n"
            "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=20)\n"
            "sys.stderr.write(r.stderr)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.exit(r.returncode)\n")
    env = dict(os.environ, PYTHONPATH=SCRIPTS)
    r = subprocess.run([sys.executable, "-c", code, sys.executable, ENTRY, "memrel_trace",
                        *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd,
                       timeout=60)
    return r, int(r.stdout.strip() or 0)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_as_the_source_is_refused_at_once(tmp_path, kind):
    source = tmp_path / "snap.pickle"
    if kind == "fifo":
        os.mkfifo(source)
    else:
        os.symlink("/dev/zero", source)
    r, _ = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    refused(r, str(source), "a FIFO" if kind == "fifo" else "a character device")


@pytest.mark.parametrize("content, words", [
    # LONG_BINPUT 2^31 - 1: the C unpickler's memo table of 2^31 entries.
    (b"\x80\x04Nr\xff\xff\xff\x7f.", "more than"),
    # BINBYTES8 of 2^48 bytes in a 12-byte file: the scan cannot follow it, so the pure-Python
    # unpickler loads it (safe_pickle), under the same address-space limit; it reads what is
    # there and finds the pickle cut short.
    (b"\x80\x04\x8e" + (1 << 48).to_bytes(8, "little") + b".", "truncated or malformed"),
])
def test_a_pickle_asking_for_a_huge_memo_is_refused_in_bounded_memory(tmp_path, content, words):
    source = tmp_path / "memo.pickle"
    source.write_bytes(content)
    r, peak_kib = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    refused(r, words)
    assert peak_kib < 3 << 20


def nested_list(levels):
    value = []
    for _ in range(levels):
        value = [value, value]  # pickled once each: 2^levels values when expanded
    return value


def nested_tuple(levels):
    value = ()
    for _ in range(levels):
        value = (value, value)
    return value


@pytest.mark.parametrize("where", ["settings", "addr", "stream", "size"])
def test_repeated_references_do_not_expand(tmp_path, where):
    source = tmp_path / "snap.pickle"
    entry = {"action": "alloc", "addr": 4096, "size": 512, "stream": 0}
    settings = None
    if where == "settings":
        settings = {"x": nested_list(60)}
    elif where == "size":
        entry["size"] = nested_list(60)
    else:
        entry[where] = nested_tuple(60)
    snapshot_pickle(source, [entry], settings)
    assert os.path.getsize(source) < 2000
    r, peak_kib = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    if where == "stream":  # a stream that is not an int is not listed: the import goes on
        assert r.returncode == 0, r.stderr
    else:
        refused(r)
    assert peak_kib < 1 << 20


def test_cyclic_settings_are_refused_with_exit_2(tmp_path):
    source = tmp_path / "snap.pickle"
    cycle = []
    cycle.append(cycle)
    snapshot_pickle(source, [], {"x": cycle})
    r, _ = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    refused(r, "allocator_settings", "cyclic")


RMM_HEADER = "Thread,Time,Action,Pointer,Size,Stream\n"


@pytest.mark.parametrize("row,what", [
    ("1,15:47:02.841961,allocate,0x1000,1_000,0x0", "Size"),
    ("1,15:47:02.841961,allocate,0x1000,+5,0x0", "Size"),
    ("1,15:47:02.841961,allocate,0x1000,\u0661\u0662,0x0", "Size"),
    ("1,15:47:02.841961,allocate,-0x1000,512,0x0", "Pointer"),
    ("1,15:47:02.841961,allocate,0x10000000000000000,512,0x0", "Pointer"),
    ("1,15:47:02.841961,allocate,0x1_000,512,0x0", "Pointer"),
    ("1,+15:47:02.841961,allocate,0x1000,512,0x0", "Time"),
    ("1,\u0661\u0665:47:02.841961,allocate,0x1000,512,0x0", "Time"),
])
def test_rmm_numbers_are_ascii_digits_in_range(tmp_path, row, what):
    source = tmp_path / "log.csv"
    source.write_text(RMM_HEADER + row + "\n", encoding="utf-8")
    r, _ = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    refused(r, "line 2", what)


def test_an_rmm_log_is_checked_while_it_streams(tmp_path):
    # A bad second row, then 200 MiB on one line: refused at line 2 without reading the rest.
    source = tmp_path / "log.csv"
    with open(source, "w", encoding="utf-8") as f:
        f.write(RMM_HEADER + "1,15:47:02.841961,allocate,0x1000,+5,0x0\n")
        chunk = "x" * (1 << 20)
        for _ in range(200):
            f.write(chunk)
    r, peak_kib = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    refused(r, "line 2")
    assert peak_kib < 100 << 10
    # And one endless line is refused after MAX_LINE_BYTES, not read whole.
    with open(source, "w", encoding="utf-8") as f:
        f.write(RMM_HEADER)
        for _ in range(200):
            f.write(chunk)
    r, peak_kib = run_limited("import", source, "-o", tmp_path / "out.memtrace")
    refused(r, "line 2", "longer than")
    assert peak_kib < 100 << 10


def test_a_trace_the_loader_would_refuse_is_not_written(tmp_path):
    sys.path.insert(0, SCRIPTS)
    from memrel_trace import trace_file

    out = tmp_path / "big.memtrace"
    with pytest.raises(trace_file.TooLargeForTheLoader, match="header"):
        trace_file.write(str(out), {"schema": "memrel.trace/1", "pad": "x" * (17 << 20)}, b"")
    assert not out.exists() and os.listdir(tmp_path) == []


# --- 6. Duplicates that make unreadable results -------------------------------------------------

def test_names_that_sanitise_alike_get_pages_of_their_own(tmp_path):
    sys.path.insert(0, SCRIPTS)
    from memrel_report import prepare, site_data

    names = ["a/b", "a_b", "a?b", "a b", "single-large"]
    pages = [site_data.page_name("workload", n) for n in names]
    assert len(set(pages)) == len(names), pages
    assert site_data.page_name("workload", "single-large") == "workload-single-large.html"
    assert prepare.colliding_names(names) is None
    crafted = prepare.slug("a/b")  # a name spelled as another's page name: refused
    assert prepare.colliding_names(["a/b", crafted]) == ("a/b", crafted)


def test_a_report_of_names_that_collide_after_sanitising_is_refused_or_unique(tmp_path):
    import json

    with open(HOST_RUN, encoding="utf-8") as f:
        doc = json.load(f)
    first = doc["cells"][0]["workload"]
    keep = [c for c in doc["cells"] if c["workload"] == first]
    cells = []
    for name in ("a/b", "a_b", "a?b"):
        for c in keep:
            cells.append(dict(c, workload=name))
    doc["cells"] = cells
    results = tmp_path / "run.json"
    results.write_text(json.dumps(doc))
    r = python("memrel_report", "--out", tmp_path / "report", results)
    assert r.returncode == 0, r.stderr
    pages = [p for p in os.listdir(tmp_path / "report") if p.startswith("workload-")]
    assert len(pages) == 3, pages
    crafted = dict(keep[0], workload=__import__("memrel_report.prepare").prepare.slug("a/b"))
    doc["cells"] = cells + [crafted]
    results.write_text(json.dumps(doc))
    refused(python("memrel_report", "--out", tmp_path / "report2", results), "share one report page")


# --- 9. Leftovers ------------------------------------------------------------------------------

SLOW_IMPORT = """
import os, sys, time
sys.path.insert(0, {scripts!r})
from memrel_trace import __main__ as importer
real_fsync = os.fsync
def slow_fsync(fd):  # the trace is whole here, not yet named: the moment a kill hurts most
    open({ready!r}, "w").close()
    time.sleep(60)
    real_fsync(fd)
os.fsync = slow_fsync
sys.exit(importer.main(["import", {source!r}, "-o", {out!r}]))
"""


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_killed_import_leaves_no_temporary_trace(tmp_path, signal_name):
    import signal
    import time

    out_dir = tmp_path / "out"
    out_dir.mkdir()
    ready = tmp_path / "ready"
    code = SLOW_IMPORT.format(scripts=SCRIPTS, ready=str(ready), source=RMM_LOG,
                              out=str(out_dir / "t.memtrace"))
    p = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not ready.exists() and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert ready.exists(), p.stderr.read() if p.poll() is not None else "never reached fsync"
    p.send_signal(getattr(signal, signal_name))
    _, err = p.communicate(timeout=30)
    assert os.listdir(out_dir) == [], os.listdir(out_dir)
    if signal_name != "SIGKILL":
        assert p.returncode == 128 + getattr(signal, signal_name), err
        assert err.strip().splitlines() == [f"memrel trace: stopped by {signal_name}; nothing written"]


@needs_memrel
def test_sighup_to_run_removes_its_imported_traces_and_keeps_the_journal(tmp_path):
    import signal
    import time

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # Every cell hangs (the runner's fault injection), so the signal finds the run under way
    # however fast this machine runs the cells.
    env = dict(os.environ, TMPDIR=str(tmp), MEMREL_PYTHON=sys.executable, MEMREL_INJECT_FAULT="hang")
    out = tmp_path / "run.json"
    p = subprocess.Popen([MEMREL, "run", "-b", "host-malloc", "-w", f"{RMM_LOG},single-large",
                          "--trace-scale", "1/1024", "-o", str(out)], env=env,
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(n.endswith(".memtrace") for n in files_below(tmp)):
        time.sleep(0.02)
    time.sleep(0.5)  # the import done, a cell running
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + signal.SIGHUP, err
    assert "SIGHUP" in err
    assert os.listdir(tmp) == []


def files_below(folder):
    return [name for _, _, names in os.walk(folder) for name in names]


def test_a_names_markup_is_text_in_report_md():
    sys.path.insert(0, SCRIPTS)
    from memrel_report import document

    name = "<img src=x onerror=alert(1)>[click](javascript:x)`c`"
    text = document.to_markdown(f"Workload {name}", [
        document.Heading(2, f"Trace {name}"),
        document.Table(headers=["workload"], rows=[[name]]),
        document.Links([document.Link(name, "workload-x.html")]),
    ])
    assert "<img" not in text
    assert text.count("&lt;img src=x onerror=alert(1)&gt;\\[click\\](javascript:x)\\`c\\`") == 4


# --- 8. Failures that are not the allocator's ---------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("python", ["/bin/true", "/bin/false", "/nonexistent/python3"])
def test_memrel_python_that_is_not_python_is_said_with_exit_4(tmp_path, python):
    env = dict(os.environ, MEMREL_PYTHON=python)
    for args in (["report", "--out", str(tmp_path / "r"), HOST_RUN],
                 ["trace", "import", RMM_LOG, "-o", str(tmp_path / "t.memtrace")],
                 ["run", "-b", "null", "--include-null", "-w", RMM_LOG, "-o", str(tmp_path / "r.json")]):
        r = subprocess.run([MEMREL, *args], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 4, (args, r.returncode, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and python in lines[0] and "MEMREL_PYTHON" in lines[0], r.stderr
        assert os.listdir(tmp_path) == [], os.listdir(tmp_path)


# --- 5. A journal two runs write at once ----------------------------------------------------------

def _journal_lines(path):
    import json

    with open(path) as f:
        return [json.loads(line) for line in f]


@needs_memrel
def test_a_resume_while_the_run_is_live_is_refused_and_the_journal_kept(tmp_path):
    import signal
    import time

    out = tmp_path / "run.json"
    journal = tmp_path / "run.json.journal"
    args = [MEMREL, "run", "-b", "host-malloc", "-w", "temp-then-delete,single-large", "-o", str(out)]
    env = dict(os.environ, MEMREL_INJECT_FAULT="hang",
               MEMREL_INJECT_FAULT_CELL="host-malloc/single-large")
    live = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not (journal.exists() and
                                              len(journal.read_text().splitlines()) >= 2):
            time.sleep(0.02)
        before = journal.read_bytes()
        r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60)
        refused(r, str(journal), "in use by a run that is still going")
        assert journal.read_bytes() == before
        assert live.poll() is None
    finally:
        live.send_signal(signal.SIGTERM)
        live.communicate(timeout=30)
    assert [line["cell"]["workload"] for line in _journal_lines(journal)[1:]] == ["temp-then-delete"]


def interrupted_run(tmp_path):
    """A run of two cells stopped by SIGTERM while its second hangs: (args, results path, journal
    path), the journal holding its header and the first cell's record."""
    import signal
    import time

    out = tmp_path / "run.json"
    journal = tmp_path / "run.json.journal"
    args = [MEMREL, "run", "-b", "host-malloc", "-w", "temp-then-delete,single-large", "-o", str(out)]
    env = dict(os.environ, MEMREL_INJECT_FAULT="hang",
               MEMREL_INJECT_FAULT_CELL="host-malloc/single-large")
    live = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline and not (journal.exists() and
                                          len(journal.read_text().splitlines()) >= 2):
        time.sleep(0.02)
    live.send_signal(signal.SIGTERM)
    live.communicate(timeout=30)
    return args, out, journal


@needs_memrel
@pytest.mark.parametrize("field,value", [("backend", "host-malloc-retain"),
                                         ("workload", "single-large"), ("index", 7)])
def test_journal_records_are_checked_against_the_matrix(tmp_path, field, value):
    import json

    args, out, journal = interrupted_run(tmp_path)
    header, record = _journal_lines(journal)
    if field == "index":
        record["index"] = value
    else:
        record["cell"][field] = value
    journal.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n")
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60)
    refused(r, str(journal), "cell")
    assert not out.exists()


@needs_memrel
def test_a_journal_that_is_a_symbolic_link_is_refused_before_anything_runs(tmp_path):
    """Sixth pass, j-sym: `run --resume` appended through a journal that was a link to another
    file, then removed the link alone: a stale journal was left, exit 0."""
    args, out, journal = interrupted_run(tmp_path)
    real = tmp_path / "real.journal"
    os.rename(journal, real)
    os.symlink("real.journal", journal)
    before = read(real)
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60)
    refused(r, str(journal), "symbolic link")
    assert read(real) == before and os.path.islink(journal) and not out.exists()


@needs_memrel
def test_a_python_named_without_a_folder_is_found_on_path(tmp_path):
    # As execvp finds it: MEMREL_PYTHON unset means python3 on PATH.
    env = {k: v for k, v in os.environ.items() if k != "MEMREL_PYTHON"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    r = subprocess.run([MEMREL, "trace", "import", RMM_LOG, "-o", str(tmp_path / "t.memtrace")],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


# --- 10. A trace is told by its magic, not its name -----------------------------------------------

@needs_memrel
def test_a_trace_and_a_log_are_told_by_content_not_extension(tmp_path):
    env = dict(os.environ, MEMREL_PYTHON=sys.executable)
    log = tmp_path / "log.txt"
    shutil.copy(RMM_LOG, log)
    trace = tmp_path / "snap.trace"
    r = subprocess.run([MEMREL, "trace", "import", log, "-o", trace], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for workload in (trace, log):
        r = subprocess.run([MEMREL, "run", "-b", "null", "--include-null", "-w", workload, "-o",
                            tmp_path / "run.json"], env=env, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, (workload, r.stderr)
    r = subprocess.run([MEMREL, "validate", trace], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_h200_baseline_note_says_whether_it_holds_the_traces():
    import json

    folder = os.path.join(ROOT, "results", "baselines", "h200")
    with open(os.path.join(folder, "suite.json"), encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    traces = {c["workload"] for c in cells if c["workload"].startswith("trace-")}
    with open(os.path.join(ROOT, "results", "baselines", "README.md"), encoding="utf-8") as f:
        note = f.read()
    if traces:
        assert "holds no trace cells" not in note
    else:
        assert "holds no trace cells" in note.replace("**", "")
        assert "the committed traces on every backend" not in note


@needs_memrel
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="needs root and unshare to mount a full tmpfs in a mount namespace")
def test_a_full_tmpdir_stops_the_run_instead_of_recording_crashed_cells(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    out = tmp_path / "run.json"
    script = (f"mount -t tmpfs -o size=256k none {full} || exit 77; "
              f"dd if=/dev/zero of={full}/fill bs=4k count=1000 2>/dev/null; "
              f"TMPDIR={full} {MEMREL} run -b null,host-malloc -w temp-then-delete -o {out}")
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                       timeout=120)
    if r.returncode == 77:
        pytest.skip("cannot mount a tmpfs here")
    if r.returncode == 1 and r.stderr.startswith("unshare: "):
        # unshare itself failed: in a chroot, / is no mount point and cannot be made private.
        pytest.skip(f"no private mount namespace here: {r.stderr.strip()}")
    assert r.returncode == 4, r.stderr
    # Said before the first cell, and no journal made (the tenth adversarial pass: a journal of no
    # cell, left by a TMPDIR found full at the first cell, was refused by the next run).
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "TMPDIR" in lines[0] and "full" in lines[0], r.stderr
    assert not out.exists() and not os.path.exists(f"{out}.journal")


# --- Found by the second adversarial pass ------------------------------------------------------

@needs_memrel
def test_run_o_onto_a_backend_file_named_by_its_name_or_its_library_is_refused(tmp_path):
    backends = tmp_path / "bd"
    backends.mkdir()
    example = os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")
    shutil.copy(example, backends / "pluggable-host-example.json")
    before = read(backends / "pluggable-host-example.json")
    r = subprocess.run([MEMREL, "--backends-dir", str(backends), "run", "-b",
                        "pluggable-host-example", "-w", "temp-then-delete", "-o",
                        str(backends / "pluggable-host-example.json")],
                       capture_output=True, text=True, timeout=120)
    refused(r, "-o")
    assert read(backends / "pluggable-host-example.json") == before
    # A backend file naming its library by a path: the library is an input as well.
    import json

    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    if not os.path.exists(library):
        pytest.skip("the host example library is not built next to memrel")
    shutil.copy(library, tmp_path / "lib.so")
    description = json.loads(open(example).read())
    description["library"] = "./lib.so"
    (tmp_path / "p.json").write_text(json.dumps(description))
    before = read(tmp_path / "lib.so")
    r = subprocess.run([MEMREL, "run", "-b", str(tmp_path / "p.json"), "-w", "temp-then-delete",
                        "-o", str(tmp_path / "lib.so")], capture_output=True, text=True, timeout=120)
    refused(r, "-o")
    assert read(tmp_path / "lib.so") == before


@needs_memrel
def test_a_pythonpath_entry_that_is_the_working_folder_imports_nothing_from_it(tmp_path):
    plant(tmp_path)
    shutil.copy(RMM_LOG, tmp_path / "log.csv")
    for entry in (str(tmp_path), str(tmp_path) + "/.", str(tmp_path) + "/"):
        env = dict(os.environ, MEMREL_PYTHON=sys.executable, PYTHONPATH=entry)
        r = subprocess.run([MEMREL, "trace", "import", "log.csv", "-o", "out.memtrace"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (entry, r.stderr)
        assert marks(tmp_path) == [], entry
        os.remove(tmp_path / "out.memtrace")


@needs_memrel
def test_bench_min_time_nan_is_refused():
    r = subprocess.run([MEMREL, "bench", "-b", "null", "--min-time", "nan", "-o", "/nonexistent"],
                       capture_output=True, text=True, timeout=60)
    refused(r, "--min-time")


@needs_memrel
def test_a_journal_record_with_a_key_twice_is_refused(tmp_path):
    import json

    args, out, journal = interrupted_run(tmp_path)
    header, record = journal.read_text().splitlines()
    status = json.dumps(json.loads(record)["cell"]["status"])
    record = record.replace('"status":' + status, '"status":' + status + ',"status":"crashed"', 1)
    assert record.count('"status":') >= 2, record[:200]
    journal.write_text(header + "\n" + record + "\n")
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60)
    refused(r, str(journal), "status")
    assert not out.exists()


@needs_memrel
def test_report_of_json_nested_too_deep_is_one_line_exit_2(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    r = subprocess.run([MEMREL, "report", "--out", str(tmp_path / "rep"), str(deep)],
                       capture_output=True, text=True, timeout=120)
    refused(r, "deep.json", "nested deeper than 512 levels")  # as the C++ readers say it


@needs_memrel
def test_report_out_where_nothing_can_be_written_is_one_line_exit_2(tmp_path):
    if not os.path.isdir("/sys/kernel"):
        pytest.skip("no sysfs here to stand for a place nothing can be written to")
    r = subprocess.run([MEMREL, "report", "--out", "/sys/memrel-report-test", HOST_RUN],
                       capture_output=True, text=True, timeout=300)
    refused(r, "--out", "cannot be written")


# --- Found by the second adversarial pass, the rest -----------------------------------------------

def memrel(*args, env=None, cwd=None, timeout=120):
    return subprocess.run([MEMREL, *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), cwd=cwd, timeout=timeout)


@needs_memrel
@pytest.mark.parametrize("args", [
    ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", ""],
    ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "{tmp}/r.json", "--shard", ""],
    ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "{tmp}/r.json", "--gpus", ""],
    ["compare", HOST_RUN, HOST_RUN, "--markdown", ""],
    ["compare", HOST_RUN, HOST_RUN, "--byte-tolerance", ""],
    ["compare", HOST_RUN, HOST_RUN, "--junit", ""],
    ["merge", "-o", "{tmp}/m.json", ""],
    ["history", "--db", "", "list"],
    ["history", "--db", "{tmp}/h.sqlite", "changes", "--markdown", ""],
    ["report", "--out", "{tmp}/rep", "--jobs", "", HOST_RUN],
    ["trace", "import", RMM_LOG, "-o", ""],
    ["run", "-w", "", "-b", "host-malloc", "-o", "{tmp}/r.json"],
    ["--workloads-dir", "", "list"],
])
def test_an_empty_value_is_refused_for_every_option(tmp_path, args):
    """F4, F11: '' meant "not given" for some options (run -o '' wrote into the default folder,
    --shard '' ran the whole matrix, --markdown '' wrote nothing): one rule, refused."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "{tmp}/h.sqlite" in " ".join(args) or "h.sqlite" in " ".join(args):
        make_history(tmp_path / "h.sqlite", [1.0, 1.0, 1.0, 1.0])
    before = sorted(os.listdir(tmp_path))
    r = memrel(*args, env={"MEMREL_PYTHON": sys.executable})
    refused(r, "an empty value")
    assert sorted(os.listdir(tmp_path)) == before


@needs_memrel
def test_compare_markdown_where_nothing_can_be_written_is_refused_before_the_work(tmp_path):
    """F5: the table was printed, then --markdown refused."""
    if not os.path.isdir("/sys/kernel"):
        pytest.skip("no sysfs here to stand for a place nothing can be written to")
    for option in ("--markdown", "--junit", "--summary", "--json"):
        r = memrel("compare", HOST_RUN, HOST_RUN, option, "/sys/memrel-test.md")
        refused(r, option, "cannot write in its folder")
        assert r.stdout == "", r.stdout


@needs_memrel
@pytest.mark.parametrize("variable", ["PYTHONPATH", "PYTHONHOME"])
def test_an_encodings_package_in_the_working_folder_does_not_break_the_interpreter(tmp_path, variable):
    """F7: an `encodings/` package in the working folder, named by PYTHONPATH or PYTHONHOME: a
    fatal error of 40 lines, exit 1. The interpreter runs isolated: it works, and runs nothing."""
    (tmp_path / "encodings").mkdir()
    (tmp_path / "encodings" / "__init__.py").write_text(
        f"open({str(tmp_path / 'RAN-encodings')!r}, 'w').close()\n")
    shutil.copy(RMM_LOG, tmp_path / "log.csv")
    r = memrel("trace", "import", "log.csv", "-o", "t.memtrace", cwd=tmp_path,
               env={"MEMREL_PYTHON": sys.executable, variable: str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t.memtrace").exists()
    assert not (tmp_path / "RAN-encodings").exists()


def memrel_bench_binary():
    bench = os.path.join(os.path.dirname(MEMREL or "/"), "benchmarks", "memrel_bench")
    return bench if os.access(bench, os.X_OK) else None


needs_bench = pytest.mark.skipif(MEMREL is None or memrel_bench_binary() is None,
                                 reason="no memrel_bench beside memrel")


@needs_bench
def test_bench_filter_that_matches_nothing_is_refused_and_writes_nothing(tmp_path):
    """F9: an empty bench-null.json, reported "1 ok", exit 0."""
    out = tmp_path / "bench"
    r = memrel("bench", "-b", "null", "-o", out, "--filter", "NOTHING-MATCHES")
    refused(r, "--filter 'NOTHING-MATCHES'", "matches no benchmark")
    assert not out.exists()


@needs_bench
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_a_signal_to_bench_leaves_no_half_written_json(tmp_path, signal_name):
    """F20: memrel_bench wrote --benchmark_out at the final name: a SIGTERM left it truncated."""
    import signal
    import time

    out = tmp_path / "bench"
    out.mkdir()
    # What a launch killed outright (SIGKILL) left: its memrel (pid) is gone; removed at the next.
    (out / "bench-host-malloc.json.tmp-4194300").write_text('{"benchmarks": [')
    p = subprocess.Popen([MEMREL, "bench", "-b", "host-malloc", "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(
            n.startswith("bench-host-malloc.json.tmp-") and not n.endswith("-4194300")
            for n in os.listdir(out)):
        time.sleep(0.02)
    time.sleep(1.0)  # memrel_bench has written part of its JSON
    p.send_signal(getattr(signal, signal_name))
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + getattr(signal, signal_name), err
    assert os.listdir(out) == [], os.listdir(out)


@pytest.mark.parametrize("option,value", [
    ("--window", "nan"), ("--window", "2.5"), ("--window", "١٢"), ("--window", "+5"),
    ("--min-magnitude", "1_000"), ("--max-pvalue", ""), ("--min-runs", " 4"),
])
def test_history_changes_numbers_are_ascii_and_one_line(tmp_path, option, value):
    """F10: what argparse refused was four lines (usage + error); `1_000` and `١٢` passed."""
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0])
    refused(python("memrel_history", "--db", db, option, value), option)


def test_timeline_file_names_are_one_per_cell():
    """F13: ('ph-', 'a') and ('ph', '-a') shared timeline-ph---a: one plot drawn over the other."""
    sys.path.insert(0, SCRIPTS)
    from memrel_report import prepare

    names = ["ph", "ph-", "-a", "a", "a--b", "a-", "-", "--", "x/y", "x_y"]
    stems = {}
    for backend in names:
        for workload in names:
            stem = prepare.joined_slug(backend, workload)
            assert stems.setdefault(stem, (backend, workload)) == (backend, workload), stem
    assert prepare.joined_slug("host-malloc", "single-large") == "host-malloc--single-large"


def test_report_timelines_of_names_that_join_alike_are_two_files(tmp_path):
    import json

    with open(HOST_RUN, encoding="utf-8") as f:
        doc = json.load(f)
    cell = next(c for c in doc["cells"] if c.get("steps"))
    cells = [dict(cell, backend=b, workload=w) for b, w in (("ph-", "a"), ("ph", "-a"))]
    doc["cells"] = cells
    results = tmp_path / "run.json"
    results.write_text(json.dumps(doc))
    r = python("memrel_report", "--out", tmp_path / "report", results)
    assert r.returncode == 0, r.stderr
    svgs = [p for p in os.listdir(tmp_path / "report") if p.startswith("timeline-") and p.endswith(".svg")]
    assert len(svgs) == 2, svgs


@needs_memrel
def test_a_run_killed_outright_leaves_its_traces_only_until_the_next_run(tmp_path):
    """F14: SIGKILL during `run -w log.csv` left memrel-trace-XXXXXX.memtrace in TMPDIR for good."""
    import signal
    import time

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), MEMREL_PYTHON=sys.executable, MEMREL_INJECT_FAULT="hang")
    p = subprocess.Popen([MEMREL, "run", "-b", "host-malloc", "-w", f"{RMM_LOG},single-large",
                          "--trace-scale", "1/1024", "-o", str(tmp_path / "a.json")], env=env,
                         stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and not any(n.endswith(".memtrace") for n in files_below(tmp)):
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    time.sleep(0.5)  # its children end by their parent-death signal
    assert files_below(tmp), "the killed run left nothing: the test did not kill it mid-run"
    users = tmp / "memrel-run-notes"  # a user's folder that only looks like a run's: kept
    users.mkdir()
    (users / "notes.txt").write_text("keep")
    r = memrel("run", "-b", "host-malloc", "-w", RMM_LOG, "--trace-scale", "1/1024", "-o",
               tmp_path / "b.json", env={"TMPDIR": str(tmp), "MEMREL_PYTHON": sys.executable})
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp) == ["memrel-run-notes"], files_below(tmp)


@needs_memrel
def test_a_missing_tmpdir_is_named(tmp_path):
    """F15: `TMPDIR=/nonexistent run -w log.csv` was an internal error naming no TMPDIR; a full
    one was "python3 is not a Python interpreter"."""
    missing = str(tmp_path / "no-such-tmp")
    for args in (["run", "-b", "host-malloc", "-w", RMM_LOG, "-o", tmp_path / "r.json"],
                 ["trace", "import", RMM_LOG, "-o", tmp_path / "t.memtrace"],
                 ["report", "--out", tmp_path / "rep", HOST_RUN]):
        r = memrel(*args, env={"TMPDIR": missing, "MEMREL_PYTHON": sys.executable})
        assert r.returncode == 4, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"TMPDIR ({missing}): no such folder" in lines[0], r.stderr
        assert "not a Python interpreter" not in lines[0]
        assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="needs root and unshare to mount a full tmpfs in a mount namespace")
def test_a_full_tmpdir_is_named_not_the_interpreter(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    script = (f"mount -t tmpfs -o size=64k none {full} || exit 77; "
              f"dd if=/dev/zero of={full}/fill bs=4k count=100 2>/dev/null; "
              f"TMPDIR={full} MEMREL_PYTHON={sys.executable} {MEMREL} report --out {tmp_path}/rep {HOST_RUN}")
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                       timeout=120)
    if r.returncode == 77:
        pytest.skip("cannot mount a tmpfs here")
    if r.returncode == 1 and r.stderr.startswith("unshare: "):
        # unshare itself failed: in a chroot, / is no mount point and cannot be made private.
        pytest.skip(f"no private mount namespace here: {r.stderr.strip()}")
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"TMPDIR ({full}): full" in lines[0], r.stderr


@needs_memrel
def test_an_interpreter_that_fails_after_the_probe_is_never_exit_1(tmp_path):
    """F16: a MEMREL_PYTHON that answers the version probe and then exits 1: memrel exited 1
    ("regression"), silent."""
    half = tmp_path / "half.sh"
    half.write_text(f'#!/bin/sh\nif [ "$2" = "-c" ]; then exec {sys.executable} "$@"; fi; exit 1\n')
    half.chmod(0o755)
    for args in (["trace", "import", RMM_LOG, "-o", tmp_path / "t.memtrace"],
                 ["report", "--out", tmp_path / "rep", HOST_RUN],
                 ["run", "-b", "host-malloc", "-w", RMM_LOG, "-o", tmp_path / "r.json"]):
        r = memrel(*args, env={"MEMREL_PYTHON": str(half)})
        assert r.returncode == 4, (args, r.returncode, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    # One that crashes (SIGSEGV) is the Python part's failure too, not an interrupt (139).
    half.write_text(f'#!/bin/sh\nif [ "$2" = "-c" ]; then exec {sys.executable} "$@"; fi; kill -SEGV $$\n')
    r = memrel("report", "--out", tmp_path / "rep", HOST_RUN, env={"MEMREL_PYTHON": str(half)})
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "ended by SIGSEGV" in lines[0], r.stderr


def test_a_hostile_bytearray_pickle_is_one_line(tmp_path):
    """F17: CPython printed "SystemError: deallocated bytearray object has exported buffers"
    before memrel's line (about one time in two)."""
    source = tmp_path / "bytearray.pickle"
    source.write_bytes(b"\x80\x05\x96\xff\xff\xff\xff\x00\x00\x00\x00")
    for _ in range(8):
        refused(python("memrel_trace", "import", source, "-o", tmp_path / "a.memtrace"),
                "more than")


def report_processes(out):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if str(out).encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@needs_memrel
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_signal_to_report_leaves_no_folder_and_no_worker(tmp_path, signal_name):
    """F19: SIGTERM, SIGHUP or SIGKILL to `memrel report` left OUT.tmp-PID beside --out and plot
    workers drawing on with no parent; exit 143 said nothing."""
    import signal
    import time

    out = tmp_path / "out"
    p = subprocess.Popen([MEMREL, "report", "--jobs", "2", "--out", str(out), HOST_RUN],
                         env=dict(os.environ, MEMREL_PYTHON=sys.executable, MPLBACKEND="Agg"),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not any(n.startswith("out.tmp-") for n in os.listdir(tmp_path)):
        time.sleep(0.02)
    time.sleep(0.3)  # drawing
    assert p.poll() is None, "the report ended before the signal"
    number = getattr(signal, signal_name)
    p.send_signal(number)
    _, err = p.communicate(timeout=60)
    deadline = time.time() + 10
    while time.time() < deadline and report_processes(out):
        time.sleep(0.1)
    assert report_processes(out) == []
    assert p.returncode == (-number if signal_name == "SIGKILL" else 128 + number), err
    if signal_name != "SIGKILL":
        assert len(err.strip().splitlines()) == 1 and signal_name in err, err
        assert os.listdir(tmp_path) == [], os.listdir(tmp_path)
    else:  # SIGKILL runs no code in memrel: its child cleans up, or the next report does
        r = memrel("report", "--out", out, HOST_RUN, env={"MEMREL_PYTHON": sys.executable})
        assert r.returncode == 0, r.stderr
        assert os.listdir(tmp_path) == ["out"], os.listdir(tmp_path)


def test_a_stale_report_folder_of_a_dead_process_is_removed(tmp_path):
    stale = tmp_path / "out.tmp-4194300"  # above any pid_max in use: no such process
    stale.mkdir()
    (stale / ".memrel-report-partial").write_text("")
    (stale / "half.svg").write_text("<svg")
    users = tmp_path / "out.tmp-2024"  # a folder of the user's that only looks like one of ours
    users.mkdir()
    (users / "notes.txt").write_text("keep")
    r = python("memrel_report", "--out", tmp_path / "out", HOST_RUN)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["out", "out.tmp-2024"]


@needs_memrel
@pytest.mark.parametrize("value", ["nan", "abc", "9e999", "blob"])
def test_history_show_refuses_a_figure_that_is_not_a_finite_number(tmp_path, value):
    """F21: `history show` printed 'nan' and 'abc' as 0, 9e999 as inf, exit 0."""
    db = tmp_path / "h.sqlite"
    r = memrel("history", "--db", db, "add", HOST_RUN)
    assert r.returncode == 0, r.stderr
    con = sqlite3.connect(db)
    metric, rowid = con.execute("SELECT metric, rowid FROM figures LIMIT 1").fetchone()
    literal = {"nan": "'nan'", "abc": "'abc'", "9e999": "9e999", "blob": "x'00'"}
    con.execute(f"UPDATE figures SET value = {literal[value]} WHERE rowid = ?", (rowid,))
    con.commit()
    con.close()
    r = memrel("history", "--db", db, "show", metric)
    refused(r, str(db), f"figures row {rowid}", "value", "not a finite number")


@needs_memrel
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_compare_folders_refuse_a_json_that_is_not_a_regular_file(tmp_path, kind):
    """F22: a FIFO named x.json in a compared folder was skipped without a word."""
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        shutil.copy(HOST_RUN, tmp_path / side / "run.json")
    if kind == "fifo":
        os.mkfifo(tmp_path / "b" / "x.json")
    else:
        (tmp_path / "b" / "x.json").mkdir()
    r = memrel("compare", tmp_path / "a", tmp_path / "b", timeout=30)
    refused(r, "x.json", "not a regular file")


# Third pass (an adversary told only the rules), each failing before its fix.

@needs_memrel
def test_a_pythonpath_folder_cannot_stand_in_for_the_standard_library(tmp_path):
    """A `pickle.py` (or `json.py`, `csv.py`, `sitecustomize.py`) in a folder PYTHONPATH names
    ran during `trace import` and `list`: PYTHONPATH's folders now come after the interpreter's
    own, and the frameworks' availability probe runs isolated."""
    folder = tmp_path / "py"
    folder.mkdir()
    for module in ("pickle", "json", "csv", "argparse", "collections", "sitecustomize"):
        (folder / f"{module}.py").write_text(f"open({str(tmp_path / ('RAN_' + module))!r}, 'w')\n")
    log = folder / "r.csv"
    log.write_text("Thread,Time,Action,Pointer,Size,Stream\n1,10:00:00.000001,allocate,0x1000,100,0x0\n")
    env = dict(os.environ, PYTHONPATH=str(folder))
    r = subprocess.run([MEMREL, "trace", "import", str(log), "-o", str(tmp_path / "o.memtrace")],
                       capture_output=True, text=True, env=env, cwd=folder, timeout=120)
    assert r.returncode == 0, r.stderr
    for pythonpath in (str(folder), "."):
        r = subprocess.run([MEMREL, "list"], capture_output=True, text=True, cwd=folder,
                           env=dict(os.environ, PYTHONPATH=pythonpath), timeout=120)
        assert r.returncode == 0, r.stderr
    assert not list(tmp_path.glob("RAN_*")), sorted(p.name for p in tmp_path.glob("RAN_*"))


@needs_memrel
def test_two_compare_outputs_onto_one_file_are_refused_before_any_work(tmp_path):
    r = subprocess.run([MEMREL, "compare", HOST_RUN, HOST_RUN, "--markdown", "x.md", "--json",
                        "./x.md"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "--json", "the same file as --markdown")
    assert not (tmp_path / "x.md").exists()


@needs_memrel
def test_ab_whose_reference_cannot_run_is_not_a_regression(tmp_path):
    """Exit 1 means a regression of the candidate; a reference that fails leaves nothing to
    compare against (exit 4, one line naming the side). The reference answers --help as
    memrel_bench does (memrel asks it once), then fails."""
    failing = tmp_path / "memrel_bench"
    failing.write_text("#!/bin/sh\n[ \"$1\" = --help ] && { echo 'Usage: memrel_bench stub'; exit 0; }\n"
                       "exit 1\n")
    failing.chmod(0o755)
    r = subprocess.run([MEMREL, "ab", "-b", "host-malloc", "--rounds", "5", "--quick",
                        "--reference-bench", str(failing), "--out", str(tmp_path / "ab")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 4, (r.returncode, r.stderr)
    assert "the reference host-malloc failed in round 1" in r.stderr


@needs_memrel
@pytest.mark.parametrize("value", ["0x10", "1e3", "inf", " 5", "+5"])
def test_a_setting_is_decimal_digits(tmp_path, value):
    """`trim_threshold=0x10` was 16 bytes (std::stod reads hexadecimal): sizes are decimal."""
    r = subprocess.run([MEMREL, "run", "-b", f"host-malloc:trim_threshold={value}", "-w",
                        "single-large", "-o", str(tmp_path / "r.json")], capture_output=True,
                       text=True, timeout=120)
    refused(r, f"trim_threshold={value}", "expected a size")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_report_of_one_results_file_given_twice_is_refused(tmp_path):
    r = subprocess.run([MEMREL, "report", HOST_RUN, os.path.join(os.path.dirname(HOST_RUN), ".",
                        os.path.basename(HOST_RUN)), "--out", str(tmp_path / "rep")],
                       capture_output=True, text=True, timeout=300)
    refused(r, "given twice")
    assert not (tmp_path / "rep").exists()


@needs_memrel
def test_an_advise_grid_is_named_as_one_and_capped(tmp_path):
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    r = subprocess.run([MEMREL, "advise", trace, "--grid", str(tmp_path / "none.json"), "--out",
                        str(tmp_path / "a")], capture_output=True, text=True, timeout=120)
    refused(r, "none.json", "grid file")
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"schema": "memrel.advise-grid/1", "configurations": [
        f"host-malloc:trim_threshold={i}" for i in range(1001)]}))
    r = subprocess.run([MEMREL, "advise", trace, "--grid", str(big), "--out", str(tmp_path / "a")],
                       capture_output=True, text=True, timeout=120)
    refused(r, "1001 entries", "at most 1000")
    assert not (tmp_path / "a").exists()


@needs_memrel
def test_ab_refused_in_its_first_round_leaves_no_folder_of_its_own(tmp_path):
    r = subprocess.run([MEMREL, "ab", "-b", "host-malloc", "--rounds", "5", "--quick",
                        "--filter=NOMATCH", "--out", str(tmp_path / "ab")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "matches no benchmark" in r.stderr
    assert not (tmp_path / "ab").exists()


@needs_memrel
def test_an_option_parser_error_starts_as_every_error_of_memrel(tmp_path):
    r = subprocess.run([MEMREL, "compare", "--alpha", "x", HOST_RUN, HOST_RUN], capture_output=True,
                       text=True, timeout=60)
    assert refused(r, "--alpha").startswith("memrel: --alpha")


@needs_memrel
def test_advise_help_says_what_an_interruption_keeps_and_how_to_resume():
    r = subprocess.run([MEMREL, "advise", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "--resume" in r.stdout and "nothing is kept" not in r.stdout
    assert "journal" in r.stdout and "3 the sweep ran but" in r.stdout


# --- What was still open (fix23) -------------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("command", ["report", "ab", "advise"])
def test_a_folder_output_given_a_file_says_so(tmp_path, command):
    """`--out FILE` said "is not a regular file, not a folder": a file is a file."""
    afile = tmp_path / "results.json"
    afile.write_text("keep")
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    args = {"report": ["report", "--out", afile, HOST_RUN],
            "ab": ["ab", "-b", "null", "--quick", "--out", afile],
            "advise": ["advise", trace, "-b", "host-malloc", "--out", afile]}[command]
    if command == "ab" and memrel_bench_binary() is None:
        pytest.skip("no memrel_bench beside memrel")
    line = refused(memrel(*args, env={"MEMREL_PYTHON": sys.executable}), str(afile))
    assert line.endswith(f"{afile}: is a file; --out wants a folder"), line
    assert afile.read_text() == "keep"


@needs_bench
@pytest.mark.parametrize("command", ["bench", "ab"])
def test_bench_and_ab_take_a_configuration_of_two_settings_as_run_does(tmp_path, command):
    """-b split on every comma: `host-malloc:trim_threshold=0,mmap_threshold=1MiB` was two
    backends, the second 'mmap_threshold=1MiB' unknown. Now one configuration (its canonical
    name), and a comma before a name still starts another backend, as `run -b` reads them."""
    spec = "host-malloc:trim_threshold=0,mmap_threshold=1MiB,null"
    out = tmp_path / "out"
    if command == "bench":
        r = memrel("bench", "-b", spec, "-o", out, "--quick", "--filter", "pair/", timeout=300)
        assert r.returncode == 0, r.stderr
        assert sorted(os.listdir(out)) == ["bench-host-malloc_mmap_threshold_1MiB_trim_threshold_0.json",
                                           "bench-null.json"]
    else:
        # Refused in the first round for the filter: after every -b was resolved, so the
        # message names the configuration as one backend.
        r = memrel("ab", "-b", spec, "--rounds", "5", "--quick", "--filter=NOMATCH",
                   "--out", out, timeout=300)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip().splitlines()[-1] == (
            "memrel: --filter 'NOMATCH' matches no benchmark of "
            "host-malloc:mmap_threshold=1MiB,trim_threshold=0: nothing to compare")


# Fourth pass (an adversary told only the rules), each failing before its fix.

@needs_memrel
def test_a_pythonuserbase_folder_runs_no_pth_file(tmp_path):
    """`site` reads PYTHONUSERBASE despite -I, and a `.pth` file in the site-packages it named
    ran during `trace import` and `list` (the frameworks' probe): memrel takes the user's
    site-packages from the home folder only."""
    version = "python%d.%d" % sys.version_info[:2]
    site_packages = tmp_path / "ub" / "lib" / version / "site-packages"
    site_packages.mkdir(parents=True)
    ran = tmp_path / "RAN_pth"
    (site_packages / "x.pth").write_text(f"import os; open({str(ran)!r}, 'w').close()\n")
    log = tmp_path / "r.csv"
    log.write_text("Thread,Time,Action,Pointer,Size,Stream\n1,10:00:00.000001,allocate,0x1000,100,0x0\n")
    env = dict(os.environ, PYTHONUSERBASE=str(tmp_path / "ub"))
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run([MEMREL, "trace", "import", str(log), "-o", str(tmp_path / "o.memtrace")],
                       capture_output=True, text=True, env=env, cwd=work, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "list"], capture_output=True, text=True, env=env, cwd=work,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert not ran.exists(), "a .pth file of PYTHONUSERBASE's ran"


def test_a_name_in_an_images_alt_text_is_text_not_markup():
    """A trace named `x](http://outside/i.png)` made report.md show an outside image."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        from memrel_report.document import to_markdown, Image
    finally:
        sys.path.pop(0)
    plot = type("Plot", (), {"title": "x](http://outside/i.png) <img src=y>", "png": "a.png",
                             "svg": "a.svg"})()
    text = to_markdown("t", [Image(plot)])
    import re
    assert not re.search(r"(?<!\\)\]\(http://outside", text) and "<img" not in text, text


@needs_memrel
@pytest.mark.parametrize("kind", ["fifo", "zero", "header-a-list", "header-without-counts",
                                  "header-nested-deep"])
def test_trace_show_reads_by_the_input_rules(tmp_path, kind):
    """`trace show` blocked on a FIFO, read /dev/zero until memory ran out, and called a header
    that is not an object an internal error (exit 4)."""
    trace = tmp_path / "t.memtrace"
    if kind == "fifo":
        os.mkfifo(trace)
    elif kind == "zero":
        trace = "/dev/zero"
    elif kind == "header-nested-deep":  # i58: RecursionError, exit 4
        header = b"[" * 100000 + b"]" * 100000
        trace.write_bytes(b"MEMTRACE" + len(header).to_bytes(4, "little") + (16).to_bytes(4, "little")
                          + header)
    else:
        header = b"[]      " if kind == "header-a-list" else b'{"schema": "memrel.trace/1"}'
        trace.write_bytes(b"MEMTRACE" + len(header).to_bytes(4, "little") + (16).to_bytes(4, "little")
                          + header)
    r = subprocess.run([MEMREL, "trace", "show", str(trace)], capture_output=True, text=True,
                       timeout=30)
    refused(r, str(trace))


@needs_memrel
def test_a_journal_that_is_a_fifo_is_refused_not_waited_on(tmp_path):
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"), tmp_path / "w.json")
    os.mkfifo(tmp_path / "out.json.journal")
    r = subprocess.run([MEMREL, "run", "-q", "-b", "null", "-w", "w.json", "-o", "out.json",
                        "--resume"], capture_output=True, text=True, cwd=tmp_path, timeout=30)
    refused(r, "out.json.journal", "not a regular file")


@needs_memrel
@pytest.mark.parametrize("command", ["bench", "ab"])
@pytest.mark.parametrize("argument", ["--benchmark_min_warmup_time=nan",
                                      "--benchmark_min_warmup_time=infs",
                                      "--benchmark_repetitions=0",
                                      "--benchmark_min_warmup_time=-1"])
def test_a_bench_arg_that_switches_a_limit_off_is_refused(tmp_path, command, argument):
    """`--bench-arg=--benchmark_min_time=nan` ran memrel_bench for ever."""
    r = subprocess.run([MEMREL, command, "-b", "host-malloc", f"--bench-arg={argument}", "--out"
                        if command == "ab" else "-o", str(tmp_path / "o")], capture_output=True,
                       text=True, timeout=30)
    refused(r, "--bench-arg", argument)
    assert not (tmp_path / "o").exists()


@needs_memrel
@pytest.mark.parametrize("command", ["bench", "ab"])
@pytest.mark.parametrize("argument, use", [
    ("--benchmark_out=w.json", "-o, --out"), ("--benchmark_out_format=csv", "-o, --out"),
    ("--benchmark_format=csv", "-o, --out"), ("--benchmark_filter=", "--filter"),
    ("--benchmark_min_time=0.1", "--min-time"), ("--benchmark_list_tests=true", "memrel list"),
    ("--help", "--help"), ("--benchmark_context=memrel_backend=x", "context"),
    ("--benchmark_report_aggregates_only=true", "every repetition"),
    ("--benchmark_repetitions=99999999999", "from 1 to 1000"),
    ("--benchmark_min_warmup_time=nan", "above 0"), ("--v=3", "allowed:"),
])
def test_a_bench_arg_that_sets_what_memrel_sets_or_reads_is_refused(tmp_path, command, argument,
                                                                     use):
    """Sixth pass: `--bench-arg=--benchmark_out=LINK` wrote through the link, a FIFO there hung,
    `--help` read as "unavailable": only options of how Google Benchmark measures pass on."""
    (tmp_path / "w.json").write_text("keep")
    r = subprocess.run([MEMREL, command, "-b", "host-malloc", "--quick", f"--bench-arg={argument}",
                        "--out" if command == "ab" else "-o", "o"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    refused(r, "--bench-arg", argument, use)
    assert sorted(os.listdir(tmp_path)) == ["w.json"] and read(tmp_path / "w.json") == b"keep"


@needs_memrel
@pytest.mark.parametrize("args", [["bench", "--bench", "/bin/true"], ["bench", "--bench", "/bin/false"],
                                  ["ab", "--reference-bench", "/bin/true"],
                                  ["ab", "--candidate-bench", "/bin/false"]])
def test_a_bench_program_that_is_not_memrel_bench_is_refused(tmp_path, args):
    """Sixth pass: `--bench /bin/true` called the backend unavailable (exit 0), /bin/false was the
    allocator's failure (exit 3), `ab --reference-bench /bin/true` "every backend unavailable"."""
    out = ["--out", "o"] if args[0] == "ab" else ["-o", "o"]
    r = subprocess.run([MEMREL, args[0], "-b", "host-malloc", "--quick", *args[1:], *out],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    refused(r, args[1], args[2], "is not a memrel_bench (asked for its --help")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("logs", ["link", "dangling", "build"])
def test_bench_logs_is_a_real_folder_without_an_input_below(tmp_path, logs):
    """Sixth pass: `--logs` through a link to a folder, or a dangling one, was followed; the build
    folder of the running memrel took a log."""
    (tmp_path / "target").mkdir()
    os.symlink("target", tmp_path / "link")
    os.symlink("/nonexistent", tmp_path / "dangling")
    folder = os.path.dirname(MEMREL) if logs == "build" else logs
    before = sorted(os.listdir(os.path.dirname(MEMREL)))
    r = subprocess.run([MEMREL, "bench", "-q", *BENCH_QUICK, "-o", "o", "--logs", folder],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "--logs", folder)
    assert sorted(os.listdir(tmp_path)) == ["dangling", "link", "target"]
    assert os.listdir(tmp_path / "target") == []
    assert sorted(os.listdir(os.path.dirname(MEMREL))) == before


@needs_memrel
def test_ab_cpus_refuses_a_cpu_given_twice(tmp_path):
    """Sixth pass: `--cpus 0,0` was taken as one CPU without a word."""
    r = subprocess.run([MEMREL, "ab", *AB_QUICK, "--cpus", "0,0", "--out", "o"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=60)
    refused(r, "--cpus '0,0': CPU 0 is given twice")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("args", [["run", "-q", "-b", "no\nsuch", "-w", "temp-then-delete", "-o", "r.json"],
                                  ["trace", "import", "no\nsuch.pickle", "-o", "t.memtrace"],
                                  ["report", "--out", "rep", "no\nsuch.json"]])
def test_a_newline_in_a_name_keeps_the_error_one_line(tmp_path, args):
    """A newline in a backend's name or a path made a two-line error (C++ and Python parts)."""
    r = subprocess.run([MEMREL] + args, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    refused(r, "no\\nsuch")


# --- Fourth pass, importer and signals ---------------------------------------------------------
# Each fails on the code before its fix (MEMREL_BINARY=<the older memrel> python3 -m pytest ...).

# A Python part that handles SIGTERM as the importer does (a Python handler, run only between
# bytecodes) and is then busy in C code: hashing a tuple shared 2^60 times, which no signal
# interrupts (the fourth adversarial pass, s11, s12). memrel's version probe (`-c`) is answered.
BUSY_PYTHON = """#!/bin/sh
if [ "$2" = "-c" ]; then exec {python} "$@"; fi
exec {python} -c '
import os, signal, sys
signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
open("{pid_file}.tmp", "w").write(str(os.getpid()))
os.rename("{pid_file}.tmp", "{pid_file}")
t = ()
for _ in range(60):
    t = (t, t)
hash(t)
'
"""


def busy_python(tmp_path):
    pid_file = tmp_path / "child.pid"
    wrapper = tmp_path / "busy-python"
    wrapper.write_text(BUSY_PYTHON.format(python=sys.executable, pid_file=pid_file))
    wrapper.chmod(0o755)
    return str(wrapper), pid_file


def wait_for_file(path, seconds=60):
    import time

    deadline = time.time() + seconds
    while not path.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert path.exists(), f"{path} never appeared"
    return int(path.read_text())


def process_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def gone_within(pid, seconds):
    import signal
    import time

    deadline = time.time() + seconds
    while process_alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    if process_alive(pid):
        os.kill(pid, signal.SIGKILL)  # the test leaves nothing running either way
        return False
    return True


PYTHON_PARTS = {
    "trace import": ["trace", "import", RMM_LOG, "-o", "t.memtrace"],
    "run -w x.csv": ["run", "-q", "-b", "null", "-w", RMM_LOG, "-o", "r.json"],
}


@needs_memrel
@pytest.mark.parametrize("part", list(PYTHON_PARTS))
def test_a_python_part_busy_in_c_code_does_not_outlive_a_killed_memrel(tmp_path, part):
    """s11: its parent-death signal was SIGTERM, which Python handles only between bytecodes:
    the child ran on at 100 % CPU, reparented to init, after memrel's SIGKILL."""
    python, pid_file = busy_python(tmp_path)
    p = subprocess.Popen([MEMREL, *PYTHON_PARTS[part]], cwd=tmp_path, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=dict(os.environ, MEMREL_PYTHON=python))
    child = wait_for_file(pid_file)
    p.kill()
    p.wait(timeout=30)
    assert gone_within(child, 5), "the Python part outlived memrel's SIGKILL"


@needs_memrel
@pytest.mark.parametrize("part", list(PYTHON_PARTS))
def test_sigterm_ends_memrel_and_its_busy_python_part_within_the_grace(tmp_path, part):
    """s12: memrel passed SIGTERM on, then waited for the child without end."""
    import signal
    import time

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    python, pid_file = busy_python(tmp_path)
    p = subprocess.Popen([MEMREL, *PYTHON_PARTS[part]], cwd=tmp_path, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, MEMREL_PYTHON=python, TMPDIR=str(tmp)))
    child = wait_for_file(pid_file)
    started = time.time()
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        gone_within(child, 5)
        pytest.fail("memrel still running 30 s after SIGTERM")
    assert time.time() - started < 15
    assert p.returncode == 143, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "SIGTERM" in lines[0], err
    assert gone_within(child, 2), "the Python part outlived memrel"
    assert os.listdir(tmp) == [], os.listdir(tmp)


def shared_tuple_snapshot(where, depth=60):
    """allocator_settings hashing a tuple shared 2^depth times: a dict key (where="key") or a
    frozenset's member ("set"). The importer's fuzzer seeds the same pickles: one builder, its."""
    spec = importlib.util.spec_from_file_location(
        "fuzz_importer", os.path.join(ROOT, "tests", "fuzz", "fuzz_importer.py"))
    fuzzer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzzer)
    return fuzzer.shared_tuple_hashed(depth, where)


@pytest.mark.parametrize("where", ["key", "set"])
def test_a_tuple_the_unpickler_would_hash_without_end_is_refused(tmp_path, where):
    """i26, i27: 380 bytes whose dict key (or frozenset member) is a tuple shared 2^60 times:
    the unpickler hashed it for ever (CPython caches no tuple's hash)."""
    snap = tmp_path / "a.pickle"
    snap.write_bytes(shared_tuple_snapshot(where))
    assert pickle.loads(shared_tuple_snapshot(where, depth=3))["allocator_settings"]  # well formed
    try:
        r = python("memrel_trace", "import", snap, "-o", tmp_path / "t.memtrace", timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the import ran past 60 s")
    refused(r, "a.pickle", "hashing")
    assert not (tmp_path / "t.memtrace").exists()


def test_the_scan_tells_a_pickle_that_builds_tuples_or_sets_from_one_that_does_not():
    """The scan sends a pickle with a tuple, a set or a frozenset to the counting unpickler, and
    only one without to the C unpickler (the fast path of real snapshots)."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        from memrel_trace.pickle_scan import hashes_something
    finally:
        sys.path.pop(0)
    # No bytes: protocols 0 to 2 write them as a call with a tuple of arguments.
    plain = {"k" * 40: ["x" * 300, 2 ** 61 - 2, -(2 ** 61 - 2), 10 ** 18, -1, 1.5, None, True,
                        "\u0661" * 40],
             "device_traces": [[{"addr": 1 << 44}] * 3]}
    for protocol in range(0, 6):
        assert hashes_something(pickle.dumps(plain, protocol=protocol)) is False, protocol
        # Integers whose hash others can share (2^61 - 1 and above) go to the careful path too.
        for value in [(1, 2), (), {1}, frozenset({1}), ("x" * 300, 1), 2 ** 61 - 1, -(2 ** 61 - 1),
                      2 ** 70, 10 ** 19]:
            data = pickle.dumps(dict(plain, after_a_long_string=value), protocol=protocol)
            assert hashes_something(data) is True, (protocol, value)
    for where in ("key", "set"):
        assert hashes_something(shared_tuple_snapshot(where)) is True
    assert hashes_something(pickle.dumps(plain, protocol=4)[:-20]) is None  # cut: cannot tell


def test_a_snapshot_with_tuple_keys_of_its_own_still_imports(tmp_path):
    """The bound counts expanded tuples, so real sharing of small keys stays far below it."""
    key = ("a", 1)
    snap = {"segments": [], "device_traces": [[
        {"action": "alloc", "addr": 4096, "size": 1024, "stream": 0, "time_us": 1},
        {"action": "free_requested", "addr": 4096, "size": 1024, "stream": 0, "time_us": 2},
        {"action": "free_completed", "addr": 4096, "size": 1024, "stream": 0, "time_us": 3}]],
        "allocator_settings": {"m": [{key: i, frozenset([key]): i} for i in range(1000)]}}
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(snap, protocol=4))
    r = python("memrel_trace", "import", tmp_path / "s.pickle", "-o", tmp_path / "t.memtrace")
    assert r.returncode == 0, r.stderr


def snapshot_bytes():
    snap = {"segments": [], "device_traces": [[
        {"action": "alloc", "addr": 4096, "size": 1024, "stream": 0, "time_us": 1},
        {"action": "free_requested", "addr": 4096, "size": 1024, "stream": 0, "time_us": 2},
        {"action": "free_completed", "addr": 4096, "size": 1024, "stream": 0, "time_us": 3}]],
        "allocator_settings": {}}
    return pickle.dumps(snap, protocol=4)


@needs_memrel
def test_a_snapshot_whose_file_name_is_not_utf8_imports_to_a_trace_run_reads(tmp_path):
    """i13: the name's byte 0xff went into the header as a lone surrogate escape: the import
    exited 0 and `run -w` refused the trace it wrote."""
    snap = tmp_path / os.fsdecode(b"sn\xffap.pickle")
    snap.write_bytes(snapshot_bytes())
    r = memrel("trace", "import", snap, "-o", tmp_path / "t.memtrace")
    assert r.returncode == 0, r.stderr
    r = memrel("run", "-q", "-b", "null", "-w", tmp_path / "t.memtrace", "-o", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    names = {c["workload"] for c in json.loads((tmp_path / "r.json").read_text())["cells"]}
    assert names == {"sn\\xffap"}, names


@needs_memrel
def test_a_name_that_is_not_utf8_is_refused_at_import(tmp_path):
    """i14: `--name` with the byte 0xff wrote a trace `run -w` refused."""
    (tmp_path / "s.pickle").write_bytes(snapshot_bytes())
    r = subprocess.run([MEMREL, "trace", "import", "s.pickle", "--name", os.fsdecode(b"a\xffb"),
                        "-o", "t.memtrace"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=60)
    refused(r, "--name", "not UTF-8")
    assert not (tmp_path / "t.memtrace").exists()


def test_report_refuses_a_lone_surrogate_in_a_name(tmp_path):
    """m20: "\\ud800" (valid JSON, no text) as a workload's name was exit 4; compare says 2."""
    doc = json.loads(read(HOST_RUN))
    doc["cells"][0]["workload"] = "\ud800"
    (tmp_path / "s.json").write_text(json.dumps(doc))
    refused(python("memrel_report", "--out", tmp_path / "rep", tmp_path / "s.json"), "s.json",
            "/cells/0/workload", "surrogate")
    assert not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("folder", ["--backends-dir", "--workloads-dir"])
def test_a_fifo_in_a_folder_whose_every_file_is_taken_is_refused(tmp_path, folder):
    """v12: a FIFO x.json in --backends-dir was skipped without a word by `run` without -b."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"), tmp_path / "w.json")
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "d" / "x.json")
    args = ["run", "-q", "-w", "w.json"] if folder == "--backends-dir" else ["run", "-q", "-b", "null"]
    r = subprocess.run([MEMREL, folder, "d", *args, "-o", "r.json"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=60)
    refused(r, "x.json", "FIFO")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_quiet_advise_prints_nothing_but_errors(tmp_path):
    """s07: `memrel -q advise` printed its first line."""
    (tmp_path / "log.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                      "1,15:47:02.841961,allocate,0x1000,1024,0x0\n"
                                      "1,15:47:02.841962,free,0x1000,1024,0x0\n")
    r = memrel("trace", "import", tmp_path / "log.csv", "-o", tmp_path / "t.memtrace")
    assert r.returncode == 0, r.stderr
    r = memrel("-q", "advise", tmp_path / "t.memtrace", "-b", "host-malloc", "--out",
               tmp_path / "adv", timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr


@needs_memrel
@pytest.mark.parametrize("entry", ["", "/proc/self/cwd", "WORKING_FOLDER"])
def test_a_path_entry_that_is_the_working_folder_does_not_run_its_python3(tmp_path, entry):
    """c10: PATH=:$PATH (an empty entry is the working folder) ran ./python3 as the interpreter;
    the fifth pass: so did PATH=/proc/self/cwd:$PATH (fails on the code before its fix)."""
    ran = tmp_path / "RAN"
    fake = tmp_path / "python3"
    fake.write_text(f"#!/bin/sh\ntouch {ran}\nexec {sys.executable} \"$@\"\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "MEMREL_PYTHON"}
    env["PATH"] = entry.replace("WORKING_FOLDER", str(tmp_path)) + ":" + os.environ["PATH"]
    r = subprocess.run([MEMREL, "trace", "import", RMM_LOG, "-o", "t.memtrace"], capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert not ran.exists(), "./python3 of the working folder ran"

# --- Fourth pass, outputs (docs/inputs.md, "Outputs"; each fails on the code before its fix) ----

TRACE = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")


def backend_file_beside(folder, name):
    """The pluggable example's backend file under NAME in FOLDER, its library named by a path."""
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        doc = json.load(f)
    doc["library"] = os.path.join(os.path.dirname(MEMREL), doc["library"])
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


@needs_bench
def test_bench_output_that_is_its_backend_file_is_refused(tmp_path):
    """o27: `bench -b o/bench-NAME.json -o o` deleted the backend file before memrel_bench ran."""
    (tmp_path / "o").mkdir()
    backend = backend_file_beside(tmp_path / "o", "bench-pluggable-host-example.json")
    before = read(backend)
    r = memrel("bench", "-q", "-b", "o/bench-pluggable-host-example.json", "-o", "o", "--quick",
               "--filter", "^pair/", "--min-time", "0.001", cwd=tmp_path, timeout=120)
    refused(r, "-o", "is the input")
    assert read(backend) == before


@needs_bench
@pytest.mark.parametrize("kind", ["folder-link", "dangling-link", "fifo"])
def test_bench_outputs_that_are_not_regular_files_are_refused(tmp_path, kind):
    """n15, n16, n17: bench followed a link as its -o folder and replaced a dangling link or a
    FIFO named like its output; every other writer refuses them."""
    victim = tmp_path / "victim"
    if kind == "folder-link":
        (tmp_path / "real").mkdir()
        os.symlink(tmp_path / "real", tmp_path / "o")
    else:
        (tmp_path / "o").mkdir()
        if kind == "dangling-link":
            os.symlink(victim, tmp_path / "o" / "bench-host-malloc.json")
        else:
            os.mkfifo(tmp_path / "o" / "bench-host-malloc.json")
    r = memrel("bench", "-q", "-b", "host-malloc", "-o", "o", "--quick", "--filter", "^pair/",
               "--min-time", "0.001", cwd=tmp_path, timeout=120)
    refused(r, "-o", "a symbolic link" if "link" in kind else "a FIFO")
    assert not victim.exists()
    if kind == "folder-link":
        assert os.listdir(tmp_path / "real") == []
    elif kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(tmp_path / "o" / "bench-host-malloc.json").st_mode)


@needs_memrel
def test_advise_json_onto_a_file_it_writes_in_out_is_refused(tmp_path):
    """o34: `advise T --out a --json a/results.json`: the frontier replaced the cells' results."""
    r = memrel("advise", TRACE, "-b", "host-malloc", "--out", "a", "--json", "./a/results.json",
               cwd=tmp_path, env={"MEMREL_PYTHON": sys.executable})
    refused(r, "--json", "results.json", "the same file")
    assert not (tmp_path / "a").exists()


@needs_memrel
def test_advise_out_holding_its_grid_is_refused(tmp_path):
    """o25: the rule "a folder output holds no input anywhere below it" was not applied to
    --grid."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    grid = tmp_path / "a" / "b" / "g.json"
    shutil.copy(os.path.join(ROOT, "benchmarks", "advise", "grid.json"), grid)
    before = read(grid)
    r = memrel("advise", TRACE, "--grid", grid, "--out", tmp_path / "a",
               env={"MEMREL_PYTHON": sys.executable})
    refused(r, "--out", "holds the input", "g.json")
    assert read(grid) == before
    assert sorted(os.listdir(tmp_path / "a")) == ["b"]


@needs_memrel
def test_an_output_that_is_a_hard_link_of_a_file_in_an_input_folder_is_refused(tmp_path):
    """o12: the rule for files in input folders was by spelling: a hard link of c/run.json
    elsewhere was taken."""
    for folder in ("b", "c"):
        (tmp_path / folder).mkdir()
        shutil.copy(HOST_RUN, tmp_path / folder / "run.json")
    os.link(tmp_path / "c" / "run.json", tmp_path / "sum.md")
    r = memrel("compare", "b", "c", "--summary", "sum.md", cwd=tmp_path)
    refused(r, "--summary", "sum.md", "input folder c")
    assert os.path.samefile(tmp_path / "sum.md", tmp_path / "c" / "run.json")


@needs_memrel
def test_a_new_json_output_in_a_compared_folder_is_refused(tmp_path):
    """Sixth pass, o-cmp-dirin: `compare b c --markdown c/x.json` wrote a .json into the current
    folder, which the next `compare b c` read as a result. Any other name there is taken."""
    for folder in ("b", "c"):
        (tmp_path / folder).mkdir()
        shutil.copy(HOST_RUN, tmp_path / folder / "run.json")
    for out in ("c/x.json", "./b/../b/y.json"):
        r = memrel("compare", "-q", "b", "c", "--markdown", out, cwd=tmp_path)
        refused(r, "--markdown", out, "input folder")
    assert sorted(os.listdir(tmp_path / "c")) == ["run.json"]
    assert sorted(os.listdir(tmp_path / "b")) == ["run.json"]
    r = memrel("compare", "-q", "b", "c", "--markdown", "c/table.md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_an_output_that_is_the_running_program_is_refused(tmp_path):
    """o29: `./memrel run -o ./memrel` replaced the running binary, exit 0."""
    shutil.copy(MEMREL, tmp_path / "memrel")
    before = read(tmp_path / "memrel")
    r = subprocess.run(["./memrel", "run", "-q", "-b", "null", "-w", WORKLOAD, "-o", "./memrel"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "-o", "a file memrel runs")
    assert read(tmp_path / "memrel") == before


def test_an_output_in_memrels_own_python_parts_is_refused(tmp_path):
    """o29, the Python side: memrel's Python parts are inputs of every command. Run from a copy
    of scripts/, so that the code before the fix replaces a file of the copy only."""
    copy = tmp_path / "scripts"
    shutil.copytree(SCRIPTS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    victim = copy / "memrel_report" / "plots.py"
    before = read(victim)
    r = subprocess.run([sys.executable, "-I", copy / "memrel_entry.py", "memrel_trace", "import",
                        RMM_LOG, "-o", victim], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, str(victim), "memrel's own code or data")
    assert read(victim) == before


def hard_link_or_skip(target, link):
    try:
        os.link(target, link)
    except OSError as e:  # another file system, or links not allowed here
        pytest.skip(f"cannot hard-link {target} here: {e.strerror}")


def memrels_own_files():
    folder = os.path.dirname(MEMREL or "/")
    names = [MEMREL, os.path.join(folder, "benchmarks", "memrel_bench"),
             os.path.join(folder, "libmemrel_pluggable_host_example.so")]
    return [n for n in names if n and os.path.isfile(n)]


@needs_memrel
@pytest.mark.parametrize("writer", ["trace-import", "history-changes"])
@pytest.mark.parametrize("own", range(3))
def test_python_writers_refuse_a_hard_link_of_a_file_memrel_runs(tmp_path, writer, own):
    """Sixth pass, o-own-*: `trace import -o me` and `history changes --markdown me`, with me a
    hard link of the memrel binary, memrel_bench or a plugin, replaced it (exit 0) where the C++
    writers refuse: the Python side learns memrel's files from it (MEMREL_PROGRAM_FILES)."""
    files = memrels_own_files()
    if own >= len(files):
        pytest.skip("not built here")
    hard_link_or_skip(files[own], tmp_path / "me")
    if writer == "trace-import":
        args = ["trace", "import", "-q", RMM_LOG, "-o", "me"]
    else:
        make_history(tmp_path / "h.sqlite", [1.0, 1.0, 1.0, 1.0])
        args = ["history", "changes", "-q", "--db", "h.sqlite", "--markdown", "me"]
    r = memrel(*args, cwd=tmp_path, env={"MEMREL_PYTHON": sys.executable})
    refused(r, "me", "memrel runs")
    assert os.path.samefile(tmp_path / "me", files[own])


@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-q", "-b", "host-malloc", "-w", WORKLOAD, "-o", "entry.py"],
    ["trace", "import", "-q", RMM_LOG, "-o", "entry.py"],
    ["compare", "-q", HOST_RUN, HOST_RUN, "--markdown", "entry.py"],
])
def test_a_hard_link_of_a_file_of_memrels_python_parts_is_not_an_output(tmp_path, command):
    """Sixth pass, o-py-*: a hard link of scripts/memrel_entry.py elsewhere was taken as an output
    by the C++ and the Python writers: every file below the Python folder is an input by
    identity."""
    hard_link_or_skip(ENTRY, tmp_path / "entry.py")
    r = memrel(*command, cwd=tmp_path, env={"MEMREL_PYTHON": sys.executable})
    refused(r, "entry.py", "memrel runs")
    assert os.path.samefile(tmp_path / "entry.py", ENTRY)


@needs_memrel
def test_a_folder_output_holding_a_hard_link_of_an_input_is_refused(tmp_path):
    """Sixth pass, o-advo-hl: `advise --out ex` with ex/x.bin a hard link of its trace was taken;
    report --out (the Python side) by the same rule."""
    trace = tmp_path / "t.memtrace"
    shutil.copy(TRACE, trace)
    (tmp_path / "ex" / "deep").mkdir(parents=True)
    os.link(trace, tmp_path / "ex" / "deep" / "x.bin")
    r = memrel("advise", "-q", trace, "-b", "host-malloc", "--out", tmp_path / "ex",
               env={"MEMREL_PYTHON": sys.executable})
    refused(r, "--out", "x.bin", "the input")
    assert os.path.samefile(tmp_path / "ex" / "deep" / "x.bin", trace)
    results = tmp_path / "run.json"
    shutil.copy(HOST_RUN, results)
    (tmp_path / "rep").mkdir()
    os.link(results, tmp_path / "rep" / "old.json")
    refused(python("memrel_report", "--out", tmp_path / "rep", results), "old.json", "the input")
    assert os.path.samefile(tmp_path / "rep" / "old.json", results)


def sys_is_read_only():
    try:
        os.close(os.open("/sys/.memrel-test", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        return True
    os.unlink("/sys/.memrel-test")
    return False


@needs_memrel
@pytest.mark.parametrize("where", ["--json afile/x.json", "--json /sys/x.json", "--out /sys/od",
                                   "merge -o /sys/x.json"])
def test_an_output_folder_that_takes_no_file_is_refused_before_any_work(tmp_path, where):
    """Sixth pass, n-advjs-nodir, n-advjs-sys, n-advo-sys, n-merge-sys: advise said a missing or
    read-only --json folder and a read-only --out only after the sweep, and merge -o /sys/x
    failed at the write: exit 4, not the bad option's 2 before any work."""
    if "/sys" in where and not sys_is_read_only():
        pytest.skip("/sys takes a file here")
    option, path = where.rsplit(" ", 1)
    # A missing folder is made (the thirty-third pass: one rule for every writer); a file where
    # it would be made cannot be.
    (tmp_path / "afile").write_text("")
    if option.startswith("merge"):
        r = memrel("merge", "-q", HOST_RUN, "-o", path, cwd=tmp_path)
    else:
        extra = [option, path] if option == "--json" else []
        out = path if option == "--out" else "adv"
        r = memrel("advise", "-q", TRACE, "-b", "host-malloc", "--out", out, *extra, cwd=tmp_path,
                   env={"MEMREL_PYTHON": sys.executable})
    # A file where the folder would be made is named as such (the fifty-first pass, one wording).
    refused(r, path.split("/")[0] or path,
            "cannot create its folder (afile is not a folder)" if "afile" in path else "cannot write in")
    assert not (tmp_path / "adv").exists()


@needs_memrel
def test_a_failed_write_to_stdout_is_exit_4(tmp_path):
    """f14: `memrel list > /dev/full` exited 0 with nothing written."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    for args in (["list"], ["compare", HOST_RUN, HOST_RUN], ["trace", "show", TRACE]):
        with open("/dev/full", "w") as full:
            r = subprocess.run([MEMREL, *args], stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=120, env=dict(os.environ, MEMREL_PYTHON=sys.executable))
        assert r.returncode == 4, (args, r.returncode, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("memrel: cannot write to standard output")


@needs_memrel
@pytest.mark.parametrize("command", ["run", "trace-import"])
def test_a_write_past_the_file_size_limit_is_said_not_a_signal(tmp_path, command):
    """f18, f19: under `ulimit -f`, run -o and trace import died of SIGXFSZ (exit 153, no line)."""
    if command == "run":
        args = ["run", "-q", "-b", "null", "-w", WORKLOAD, "-o", "big.json"]
        out = "big.json"
    else:
        args = ["trace", "import", RMM_LOG, "-o", "t.memtrace"]
        out = "t.memtrace"
    script = 'ulimit -f 1; exec "$@"'
    r = subprocess.run(["bash", "-c", script, "bash", MEMREL, *args], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_PYTHON=sys.executable))
    assert r.returncode == 4, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "File too large" in lines[0], r.stderr
    # Both: memrel's check that TMPDIR takes a file of 64 KiB, which names the limit (run makes it
    # before its journal since the tenth adversarial pass; before, the journal's first record
    # failed, naming -o).
    assert "ulimit -f" in lines[0], lines[0]
    # The machine's state, said as such, not as memrel's own fault.
    assert "internal error" not in lines[0], lines[0]
    assert os.listdir(tmp_path) == []  # no half file, no journal of a run that never began


@needs_memrel
@pytest.mark.parametrize("stdout", ["a file, past the limit too", "a pipe"])
def test_compare_markdown_past_the_file_size_limit_is_exit_4_in_one_line(tmp_path, stdout):
    """f18: `compare --markdown m.md` under `ulimit -f` said "--markdown: cannot write m.md: File
    too large" and "cannot write to standard output", two lines; with stdout a pipe it was exit 2,
    as if --markdown were a bad option."""
    script = 'ulimit -f 4; exec "$@"' + (' > out.md' if stdout.startswith("a file") else '')
    r = subprocess.run(["bash", "-c", script, "bash", MEMREL, "compare", HOST_RUN, HOST_RUN,
                        "--markdown", "m.md"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.returncode == 4, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot write m.md: File too large" in lines[0], r.stderr
    assert not (tmp_path / "m.md").exists()


@needs_memrel
def test_a_report_that_fails_leaves_no_temporary_folder(tmp_path):
    """f20: a report that failed internally (too few file descriptors) left rep.tmp-PID/.
    10: too few to draw a chart in its own process (from 12 on it starts the workers the limit
    leaves room for, or none, and succeeds: the fifty-second adversarial pass)."""
    shutil.copy(HOST_RUN, tmp_path / "run.json")
    r = subprocess.run(["bash", "-c", 'ulimit -n 10; exec "$@"', "bash", MEMREL, "report",
                        "--jobs", "2", "--out", "rep", "run.json"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300, env=dict(os.environ, MEMREL_PYTHON=sys.executable))
    assert r.returncode in (2, 4), (r.returncode, r.stderr)
    assert sorted(os.listdir(tmp_path)) == ["run.json"], r.stderr


NIGHTLY = os.path.join(ROOT, "scripts", "nightly")


def test_nightly_refuses_a_missing_baseline_before_installing_or_building(tmp_path):
    """Seen by reading: a missing --baseline was said only after install-deps and the build, and
    a relative one was taken relative to the clone, not the caller's folder."""
    r = subprocess.run([NIGHTLY, "--baseline", "nosuch"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (f"nightly: baseline folder '{tmp_path}/nosuch' does not exist "
                                "(record one: see docs/gate.md)")


@pytest.mark.parametrize("out", ["base", "base/night", "."])
def test_nightly_refuses_an_out_folder_that_is_in_or_holds_the_baseline(tmp_path, out):
    (tmp_path / "base").mkdir()
    shutil.copy(HOST_RUN, tmp_path / "base" / "run.json")
    r = subprocess.run([NIGHTLY, "--baseline", "base", "--out", out], capture_output=True,
                       text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "baseline folder" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["base"]
    assert os.listdir(tmp_path / "base") == ["run.json"]


@needs_memrel
def test_a_trace_past_the_file_size_limit_is_the_machines_failure_not_bad_input(tmp_path):
    """The importer's own write past `ulimit -f` (a trace over 128 KiB, TMPDIR's check passed) said
    "File too large" with exit 2, as if -o were bad: it is the machine's state, exit 4."""
    events = []
    for i in range(6000):
        address = 4096 * (i + 1)
        events += [{"action": "alloc", "addr": address, "size": 512, "stream": 0, "time_us": 2 * i},
                   {"action": "free_requested", "addr": address, "size": 512, "stream": 0,
                    "time_us": 2 * i + 1},
                   {"action": "free_completed", "addr": address, "size": 512, "stream": 0,
                    "time_us": 2 * i + 1}]
    snapshot_pickle(tmp_path / "s.pickle", events)
    r = subprocess.run(["bash", "-c", 'ulimit -f 128; exec "$@"', "bash", MEMREL, "trace",
                        "import", "s.pickle", "-o", "t.memtrace"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env=dict(os.environ, MEMREL_PYTHON=sys.executable))
    assert r.returncode == 4, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "t.memtrace" in lines[0] and "File too large" in lines[0], r.stderr
    assert sorted(os.listdir(tmp_path)) == ["s.pickle"]  # no half trace


# --- Fifth pass ----------------------------------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("planted", ["hard link of the trace", "symbolic link", "FIFO", "folder"])
def test_what_advise_writes_in_out_is_checked_before_the_sweep(tmp_path, planted):
    """o59, n16, n103, n114: advise wrote advise.html in place, through a hard link of its own
    trace (the trace replaced by HTML, exit 0) or a symbolic link; a FIFO there blocked it, a
    folder gave a traceback after the sweep."""
    trace = tmp_path / "t.memtrace"
    shutil.copy(TRACE, trace)
    (tmp_path / "o").mkdir()
    page = tmp_path / "o" / "advise.html"
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    if planted == "hard link of the trace":
        os.link(trace, page)
    elif planted == "symbolic link":
        os.symlink(victim, page)
    elif planted == "FIFO":
        os.mkfifo(page)
    else:
        page.mkdir()
    before = read(trace)
    r = memrel("advise", trace, "-b", "host-malloc", "--out", tmp_path / "o",
               env={"MEMREL_PYTHON": sys.executable})
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "advise.html" in r.stderr, r.stderr
    assert read(trace) == before and victim.read_text() == "keep\n"
    assert not (tmp_path / "o" / "results.json").exists()


@needs_memrel
@pytest.mark.parametrize("command", [["validate"], ["run", "-q", "-b", "null", "-w"]])
def test_json_nested_100000_deep_is_refused_not_a_crash(tmp_path, command):
    """t27, t50: a workload nested 100,000 deep crashed its reader (SIGSEGV, exit 139)."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    args = [*command, deep] + (["-o", tmp_path / "r.json"] if command[0] == "run" else [])
    r = memrel(*args, env={"MEMREL_PYTHON": sys.executable})
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.strip() == f"memrel: {deep}: nested deeper than 512 levels", r.stderr


# --- Fifth pass: memrel bench and memrel ab -------------------------------------------------

BENCH_QUICK = ["-b", "null", "--quick", "--filter", "^pair/", "--min-time", "0.001"]
# These tests are about ab's files and output, not its verdict. An A/A of null with five rounds a
# side on a busy 2-core machine differs by more than 10 % in latency by chance now and then (a
# fresh clone's run once failed so), and then the rank test may call it a regression: latency may
# move up to 1000 % here, bytes still must match exactly.
AB_QUICK = ["-b", "null", "--quick", "--rounds", "5", "--looks", "1",
            "--filter=^pair/", "--min-time=0.001", "--latency-min-change=10"]


def bench_or_ab(command, out, *extra, cwd, env=None, preexec_fn=None):
    args = ["bench", "-q", *BENCH_QUICK, "-o", out] if command == "bench" else \
        ["ab", "-q", *AB_QUICK, "--out", out]
    return subprocess.run([MEMREL, *args, *map(str, extra)], capture_output=True, text=True,
                          cwd=cwd, timeout=300, preexec_fn=preexec_fn)


@needs_bench
@pytest.mark.parametrize("command", ["bench", "ab"])
def test_bench_and_ab_logs_are_renamed_into_place_not_written_through_a_hard_link(tmp_path,
                                                                                    command):
    """o62, o66: bench --logs and ab's round logs were opened in place (O_TRUNC): another name of
    the file at bench-null.log or rounds/reference-null-1.log lost its bytes."""
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    if command == "bench":
        (tmp_path / "lg").mkdir()
        log = tmp_path / "lg" / "bench-null.log"
        os.link(victim, log)
        r = bench_or_ab(command, "o", "--logs", "lg", cwd=tmp_path)
    else:
        (tmp_path / "o" / "rounds").mkdir(parents=True)
        log = tmp_path / "o" / "rounds" / "reference-null-1.log"
        os.link(victim, log)
        r = bench_or_ab(command, "o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "keep\n"
    assert os.stat(log).st_ino != os.stat(victim).st_ino and log.stat().st_size > 0
    assert not [p for p in tmp_path.rglob("*") if ".tmp" in p.name]


@needs_bench
@pytest.mark.parametrize("where", ["reference/bench-null.json", "candidate/bench-null.json",
                                   "rounds/candidate-null-5.json", "rounds/reference-null-3.log"])
@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_ab_refuses_a_link_or_fifo_among_its_outputs_before_the_first_round(tmp_path, where,
                                                                             kind):
    """n105, n107: a symbolic link or a FIFO at a merged file was refused only after every round
    had run, with the progress lines before it; a round's file not before its round."""
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    path = tmp_path / "o" / where
    path.parent.mkdir(parents=True)
    if kind == "link":
        os.symlink(victim, path)
    else:
        os.mkfifo(path)
    r = bench_or_ab("ab", "o", cwd=tmp_path)
    refused(r, "--out", where, "a symbolic link" if kind == "link" else "a FIFO")
    assert victim.read_text() == "keep\n"
    assert not [p for p in (tmp_path / "o").rglob("*-1.*")], "a round ran"


@needs_bench
def test_ab_compares_only_the_files_it_wrote(tmp_path):
    """o41: a user's file in --out's reference/ was read as a benchmark file: exit 2 after every
    round. An earlier run's backend there was compared as this run's."""
    (tmp_path / "o" / "reference").mkdir(parents=True)
    (tmp_path / "o" / "rounds").mkdir()
    (tmp_path / "o" / "reference" / "mine.json").write_text("precious\n")
    (tmp_path / "o" / "rounds" / "notes.txt").write_text("precious\n")
    r = bench_or_ab("ab", "o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "mine.json" not in r.stdout and "bench-null.json" in r.stdout, r.stdout
    assert (tmp_path / "o" / "reference" / "mine.json").read_text() == "precious\n"
    assert (tmp_path / "o" / "rounds" / "notes.txt").read_text() == "precious\n"


@needs_bench
def test_bench_and_ab_q_print_only_the_answer(tmp_path):
    """t79, t81: -q was not honoured: bench -q printed 'bench null: 0.6 s' and its summary, ab -q
    its plan and a line per round. As run -q: the answer on stdout (bench's folder, ab's table),
    nothing on stderr when all went well."""
    r = bench_or_ab("bench", "b", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "b\n", "")
    assert (tmp_path / "b" / "bench-null.json").exists()
    r = bench_or_ab("ab", "o", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    assert "bench-null.json" in r.stdout


@needs_bench
def test_sigterm_to_ab_q_is_one_line(tmp_path):
    """s15: ab -q printed its plan before the interruption's line."""
    import signal
    import time

    p = subprocess.Popen([MEMREL, "ab", "-q", "-b", "null", "--quick", "--rounds", "5", "--looks",
                          "1", "--out", "o"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (tmp_path / "o" / "rounds").is_dir():
        time.sleep(0.02)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, err
    assert len(err.strip().splitlines()) == 1 and "SIGTERM" in err, err


@needs_bench
@pytest.mark.parametrize("command", ["bench", "ab"])
def test_a_file_size_limit_cutting_memrel_benchs_json_is_exit_4_and_keeps_nothing(tmp_path,
                                                                                 command):
    """f41, f44: under `ulimit -f 1` memrel_bench's JSON stopped at 1024 bytes and it exited 0:
    bench put the half file in place and said '1 ok' (exit 0); ab read its own cut round file as
    malformed input (exit 2). A cut file is the machine's state: exit 4, one line, not kept."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    r = bench_or_ab(command, "o", cwd=tmp_path, preexec_fn=limit)
    assert r.returncode == 4, r.stderr
    # bench finds the limit before any backend runs (its -o folder takes no 64 KiB file: the
    # twenty-second adversarial pass); ab finds the round's file cut off.
    said = "the file size limit (ulimit -f)" if command == "bench" else "cut off"
    assert len(r.stderr.strip().splitlines()) == 1 and said in r.stderr, r.stderr
    assert "internal error" not in r.stderr, r.stderr  # the machine's state, said as such
    assert not [p for p in (tmp_path / "o").rglob("*.json*")], list((tmp_path / "o").rglob("*"))


@needs_memrel
def test_history_add_past_the_file_size_limit_is_the_machines_failure_not_bad_input(tmp_path):
    """f22 (fifth pass): SQLite's "disk I/O error" past `ulimit -f` was exit 2, as if the database
    were bad; it is the machine's state, exit 4, and the database keeps what it held."""
    r = memrel("history", "--db", tmp_path / "h.sqlite", "add", HOST_RUN)
    assert r.returncode == 0, r.stderr
    before = read(tmp_path / "h.sqlite")
    run = json.loads(read(HOST_RUN))
    run["context"]["note"] = "another run"  # another digest: added anew
    (tmp_path / "run2.json").write_text(json.dumps(run))
    r = subprocess.run(["bash", "-c", 'ulimit -f 1; exec "$@"', "bash", MEMREL, "history", "--db",
                        "h.sqlite", "add", "run2.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 4, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "h.sqlite: cannot write (disk I/O error" in lines[0], r.stderr
    assert "ulimit -f" in lines[0] and lines[0].endswith("; nothing added"), r.stderr
    assert read(tmp_path / "h.sqlite") == before
    assert sorted(os.listdir(tmp_path)) == ["h.sqlite", "run2.json"]


@needs_memrel
def test_a_new_history_that_cannot_be_written_leaves_no_file(tmp_path):
    """f-fsize-hadd (sixth pass): a new database past `ulimit -f` left an empty h.sqlite, which the
    next `history add` then had to take as an empty history made by someone."""
    r = subprocess.run(["bash", "-c", 'ulimit -f 1; exec "$@"', "bash", MEMREL, "history", "--db",
                        "h.sqlite", "add", HOST_RUN], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refusal = r.stderr.strip().splitlines()
    assert r.returncode == 4 and len(refusal) == 1, (r.returncode, r.stderr)
    assert refusal[0].startswith("memrel: h.sqlite: "), refusal  # the name given, not a temporary
    assert os.listdir(tmp_path) == []
    r = memrel("history", "--db", tmp_path / "h.sqlite", "add", HOST_RUN)
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp_path) == ["h.sqlite"]


def test_history_markdown_past_the_file_size_limit_is_the_machines_failure(tmp_path):
    """The same for `history changes --markdown` (memrel ignores SIGXFSZ for its Python parts)."""
    otava = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "memrel", "otava", "bin", "python")
    if not os.access(otava, os.X_OK):
        pytest.skip("Otava is not installed (scripts/install-deps): changes stops before writing")
    db = tmp_path / "h.sqlite"
    make_history(db, [1.0, 1.0, 1.0, 1.0])

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    r = subprocess.run([otava, ENTRY, "memrel_history", "--db", str(db), "--markdown",
                        str(tmp_path / "c.md")], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=SCRIPTS), preexec_fn=limited)
    assert r.returncode == 4, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "File too large" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["h.sqlite"]


# --- Found by the sixth adversarial pass ------------------------------------------------------------

@needs_memrel
def test_history_adds_making_one_new_database_at_once_all_succeed(tmp_path):
    """s-hist-concurrent: two `history add` making one new database at once both read schema
    version 0, and the second's CREATE TABLE failed ("table runs already exists", exit 2)."""
    run = json.loads(read(HOST_RUN))
    files = []
    for i in range(2):
        run["context"]["note"] = f"run {i}"  # each its own digest
        files.append(tmp_path / f"run{i}.json")
        files[-1].write_text(json.dumps(run))
    for attempt in range(30):  # a race: the old code lost it about one time in three
        db = tmp_path / f"h{attempt}.sqlite"
        procs = [subprocess.Popen([MEMREL, "history", "--db", str(db), "add", "-q", str(f)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for f in files]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        for p in procs:
            p.stderr.close()
        assert all(rc == 0 for rc, _ in results), results
        with sqlite3.connect(db) as c:
            assert c.execute("SELECT count(*) FROM runs").fetchone()[0] == len(files)


# d-sanit12, t26, m20, i79: a name holding a control or text-direction character went raw into
# results, compare's tables and the history (a NUL: `history add` failed on SQLite's own words
# after `run` said exit 0). Refused where read; the characters: tests/data/name_characters.json.
BAD_NAMES = [("a\u0000b", "\\u0000"), ("a\nb", "\\u000A"), ("abc\u202edef", "\\u202E"),
             ("x\u0085", "\\u0085"), ("\u2067y", "\\u2067")]


@needs_memrel
@pytest.mark.parametrize("name,shown", BAD_NAMES)
def test_a_workload_name_with_a_control_character_is_refused(tmp_path, name, shown):
    with open(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")) as f:
        doc = json.load(f)
    doc["name"] = name
    (tmp_path / "w.json").write_text(json.dumps(doc))
    r = memrel("run", "-q", "-b", "null", "-w", "w.json", "-o", "r.json", cwd=tmp_path)
    refused(r, "w.json", "'name'", shown)
    assert not (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("name,shown", BAD_NAMES)
def test_a_trace_header_name_with_a_control_character_is_refused(tmp_path, name, shown):
    raw = open(os.path.join(ROOT, "benchmarks", "workloads",
                            "trace-rmm-log-convnet-on-rmm-pool.memtrace"), "rb").read()
    length = int.from_bytes(raw[8:12], "little")
    header = json.loads(raw[16:16 + length])
    header["name"] = name
    text = json.dumps(header).encode()
    (tmp_path / "t.memtrace").write_bytes(raw[:8] + len(text).to_bytes(4, "little") + raw[12:16]
                                          + text + raw[16 + length:])
    r = memrel("run", "-q", "-b", "null", "-w", "t.memtrace", "-o", "r.json", cwd=tmp_path)
    refused(r, "t.memtrace", "header.name", shown)


@pytest.mark.parametrize("name,shown", BAD_NAMES[1:])  # a NUL cannot be an argument
def test_trace_import_refuses_such_a_name(tmp_path, name, shown):
    snapshot = tmp_path / "s.pickle"
    snapshot.write_bytes(pickle.dumps({"segments": [], "device_traces": [[
        {"action": "alloc", "addr": 4096, "size": 1024, "stream": 0, "time_us": 1},
        {"action": "free_completed", "addr": 4096, "size": 1024, "stream": 0, "time_us": 3}]]}))
    r = python("memrel_trace", "import", snapshot, "-o", tmp_path / "t.memtrace", "--name", name)
    refused(r, "--name", shown)
    # The default name, the file's without its extension, alike.
    named = tmp_path / f"{name}.pickle"
    shutil.copy(snapshot, named)
    r = python("memrel_trace", "import", named, "-o", tmp_path / "t.memtrace")
    refused(r, "the name from the file name", shown, "--name")
    assert not (tmp_path / "t.memtrace").exists()


def test_the_importer_and_memrel_agree_on_the_characters_a_name_holds():
    """tests/data/name_characters.json, checked against the C++ helper too (name_characters_test)."""
    forbidden_name_character = scripts_module("memrel_trace.name_characters").forbidden_name_character
    table = shared_table("name_characters.json")
    assert len(table) >= 20
    for name, verdict in table:
        assert forbidden_name_character(name) == verdict, name


def test_the_python_parts_and_memrel_agree_on_an_outputs_spelling(tmp_path, monkeypatch):
    """tests/data/path_spellings.json, checked against platform/path_spelling too
    (path_spelling_test)."""
    spelling_problem = scripts_module("memrel_outputs.path_spelling").spelling_problem
    table = shared_table("path_spellings.json")
    os.makedirs(tmp_path / "rep" / "sub")
    os.makedirs(tmp_path / "elsewhere" / "deep")
    os.symlink("elsewhere/deep", tmp_path / "link")
    monkeypatch.chdir(tmp_path)
    for path, refused in table["cases"]:
        problem = spelling_problem(path)
        assert (problem == "") if not refused else (refused in problem), (path, problem)


# --- Found by the seventh adversarial pass ---------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("command", [["bench", "--out", "b", "-b", "p"],
                                     ["run", "-q", "-b", "p", "-w", "temp-then-delete", "-o",
                                      "r.json"],
                                     ["bench", "--out", "b"]])
def test_a_backend_name_two_files_of_the_folder_hold_picks_neither(tmp_path, command):
    """d10: two files of --backends-dir named one backend; `bench -b NAME` ran the first in the
    folder's order, exit 0."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    example = os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")
    description = json.loads(read(example))
    description["name"] = "p"
    description["library"] = library
    (tmp_path / "bd").mkdir()
    for file in ("a.json", "b.json"):
        (tmp_path / "bd" / file).write_text(json.dumps(description))
    r = subprocess.run([MEMREL, "--backends-dir", "bd", *command], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    refused(r, "backend 'p'", "bd/a.json", "bd/b.json")
    assert sorted(os.listdir(tmp_path)) == ["bd"]
    # A path picks one: that is no ambiguity.
    if command[0] == "run":
        r = subprocess.run([MEMREL, "--backends-dir", "bd", "run", "-q", "-b", "bd/a.json", "-w",
                            "temp-then-delete", "-o", "r.json"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
        assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("column", ["metric", "source", "gpu_model"])
@pytest.mark.parametrize("value", ["'a\x1b[31mred'", "'x\u202ey'", "x'41ff1b0a42'"])
def test_history_text_that_memrel_never_writes_is_refused_not_printed(tmp_path, column, value):
    """`history list` printed a metric name the database held, ESC sequence and all, exit 0, and
    `show` a GPU model holding U+202E: a history changed by something else than memrel."""
    db = tmp_path / "h.sqlite"
    subprocess.run([MEMREL, "history", "--db", str(db), "add", HOST_RUN], check=True,
                   capture_output=True, timeout=120)
    with sqlite3.connect(db) as c:
        metric = c.execute("SELECT metric FROM figures ORDER BY metric LIMIT 1").fetchone()[0]
        table = "figures" if column == "metric" else "runs"
        c.execute(f"UPDATE {table} SET {column} = {value}" +
                  (f" WHERE metric = '{metric}'" if table == "figures" else ""))
    # `list` reads the metrics, `show` a metric's runs (the metric now holding the text can be
    # named by no one).
    commands = {"metric": [["list"], ["changes"]], "source": [["show", metric], ["changes"]],
                "gpu_model": [["show", metric]]}[column]  # what each command reads
    for command in commands:
        r = subprocess.run([MEMREL, "history", "--db", str(db), *command], capture_output=True,
                           text=True, errors="backslashreplace", timeout=120)
        refused(r, "h.sqlite", f"column {column}", "not a memrel history")
        assert "\x1b" not in r.stdout and "\u202e" not in r.stdout


def test_the_python_one_line_is_the_cpp_one_line():
    """tests/data/one_line_texts.json, checked against platform/one_line_text too
    (one_line_text_test.cpp): an error line reads the same from either side."""
    one_line = scripts_module("memrel_outputs.one_line").one_line
    table = shared_table("one_line_texts.json")
    assert len(table) >= 10
    for hex_bytes, line in table:
        assert one_line(os.fsdecode(bytes.fromhex(hex_bytes))) == line, hex_bytes


# --- Found by the eighth adversarial pass ----------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("folder", ["missing", "file"])
@pytest.mark.parametrize("command", [["list"], ["run", "-q", "-b", "host-malloc", "-w",
                                                "temp-then-delete", "-o", "r.json"]])
def test_a_backends_dir_given_is_a_folder(tmp_path, folder, command):
    """c8-backends-dir-*: `--backends-dir FILE` or a missing folder was a folder of no backend
    file, exit 0, where `--workloads-dir` said what it was."""
    if folder == "file":
        (tmp_path / "file").write_text("x")
    r = subprocess.run([MEMREL, "--backends-dir", folder, *command], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, "--backends-dir", f"'{folder}'")
    assert not (tmp_path / "r.json").exists()


LONG = "a" * 250  # under the 255 bytes of a name, over it with a temporary's suffix


@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-q", "-b", "host-malloc", "-w", "temp-then-delete", "-o", f"{LONG}.json"],
    ["compare", HOST_RUN, HOST_RUN, "--markdown", f"{LONG}.md"],
    ["merge", "-o", f"{LONG}.json", HOST_RUN],
    ["history", "--db", f"{LONG}.sqlite", "add", HOST_RUN],
    ["report", "-q", "--out", LONG, HOST_RUN],
    ["trace", "import", os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv"),
     "-o", f"{LONG}.memtrace"],
])
def test_an_output_name_too_long_for_its_temporary_is_refused_before_any_work(tmp_path, command):
    """c8-longname-*: a 300-byte output name ran every cell (compared every figure, read every
    input) and then failed with "File name too long", exit 4."""
    r = subprocess.run([MEMREL, *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    refused(r, "bytes; a name here holds")
    assert r.stdout == "" and os.listdir(tmp_path) == []


@needs_memrel
def test_an_interpreter_setting_is_named_and_said_on_one_line(tmp_path):
    """c8-memrel-python-ctrl: MEMREL_PYTHON holding ESC and a newline went to the terminal raw,
    two lines; c8-history-python-named: a bad MEMREL_HISTORY_PYTHON was blamed on MEMREL_PYTHON."""
    env = {k: v for k, v in os.environ.items() if k not in ("MEMREL_PYTHON",
                                                             "MEMREL_HISTORY_PYTHON")}
    r = subprocess.run([MEMREL, "trace", "import", RMM_LOG, "-o", "o.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(env, MEMREL_PYTHON="/x/py\x1b[31m\nthon"))
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "/x/py\\x1b[31m\\nthon (MEMREL_PYTHON)" in lines[0], r.stderr
    db = tmp_path / "h.sqlite"
    subprocess.run([MEMREL, "history", "--db", db, "add", HOST_RUN], check=True,
                   capture_output=True, timeout=120)
    r = subprocess.run([MEMREL, "history", "--db", db, "changes"], capture_output=True, text=True,
                       timeout=120, env=dict(env, MEMREL_HISTORY_PYTHON="/nonexistent/py"))
    assert r.returncode == 4, r.stderr
    assert "/nonexistent/py (MEMREL_HISTORY_PYTHON)" in r.stderr, r.stderr
    assert "set MEMREL_HISTORY_PYTHON" in r.stderr and "MEMREL_PYTHON " not in r.stderr, r.stderr


@needs_memrel
def test_cell_refuses_a_result_descriptor_that_is_not_open(tmp_path):
    """c8-cell-result-fd-closed: `cell --result-fd 9` with 9 closed ran the cell and ended with
    exit 5, "the result could not be written", which the runner reads as a full TMPDIR."""
    r = subprocess.run([MEMREL, "cell", "--backend", "host-malloc", "--workload",
                        os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                        "--result-fd", "9"], capture_output=True, text=True, timeout=120)
    refused(r, "--result-fd 9", "not an open file descriptor")


@needs_memrel
def test_a_byte_order_mark_is_read_alike_by_compare_and_report(tmp_path):
    """c0-bom-consistency: a results file starting with a UTF-8 byte order mark was taken by
    compare and history add and refused by report ("Unexpected UTF-8 BOM")."""
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + read(HOST_RUN))
    for command in (["compare", bom, bom], ["report", "-q", "--out", tmp_path / "rep", bom]):
        r = subprocess.run([MEMREL, *map(str, command)], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, (command[0], r.stderr)


@needs_memrel
@pytest.mark.parametrize("home", ["relative", "absolute"])
def test_no_pth_file_of_a_user_site_runs(tmp_path, home):
    """c3-home-dot-pth-*: HOME=. made ./.local/lib/pythonX.Y/site-packages the user's
    site-packages, and a .pth file there ran during `trace import`, `report`, `advise`;
    c3-usersite-pth-* (the ninth pass): under an absolute HOME too. The user's site-packages is on
    the path (pip install --user), and nothing in it runs by being there."""
    site = tmp_path / ".local" / "lib" / ("python%d.%d" % sys.version_info[:2]) / "site-packages"
    site.mkdir(parents=True)
    mark = tmp_path / "PWNED"
    (site / "x.pth").write_text(f"import os; open({str(mark)!r}, 'w').write('x')\n")
    r = subprocess.run([MEMREL, "trace", "import", RMM_LOG, "-o", "o.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, HOME="." if home == "relative" else str(tmp_path),
                                MEMREL_PYTHON=sys.executable))
    assert r.returncode == 0, r.stderr
    assert not mark.exists()


@needs_memrel
def test_a_trace_name_follows_the_workload_name_rule(tmp_path):
    """c6-trace-name-brackets: `trace import --name 'a[1]'` wrote a trace that ran, where a
    workload of that name is refused ('[' and ']' name group members)."""
    r = subprocess.run([MEMREL, "trace", "import", RMM_LOG, "--name", "a[1]", "-o", "a.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, "--name", "may not contain '[' or ']'")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_no_results_file_goes_into_the_workloads_folder(tmp_path):
    """c1-out-into-workloads-dir: `run -o wd/r.json` into the --workloads-dir was taken, and every
    later run of the folder refused r.json as a workload."""
    (tmp_path / "wd").mkdir()
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                tmp_path / "wd")
    r = subprocess.run([MEMREL, "--workloads-dir", "wd", "run", "-q", "-b", "null", "-o",
                        "wd/./r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "-o wd/./r.json", "read as a workload")
    assert sorted(os.listdir(tmp_path / "wd")) == ["temp-then-delete.json"]


@needs_memrel
def test_control_characters_read_from_a_results_file_reach_no_page_raw(tmp_path):
    """c9-ctrl-reason-compare, -reason-report, -context-report: a cell's reason and the machine's
    description holding ESC, \\x01 and NUL went raw into compare's Markdown, the report's pages
    and report.md (markup was escaped; control characters were not)."""
    doc = json.loads(read(HOST_RUN))
    doc["cells"][0]["status"] = "error"
    doc["cells"][0]["reason"] = "boom \u0001\u001b[31mRED"
    doc["context"]["cpu"] = "cpu\u0001\u001b[2J"
    doc["context"]["host"] = "h\u0000x\u001b[31m"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc))
    r = subprocess.run([MEMREL, "compare", HOST_RUN, forged, "--markdown", tmp_path / "o.md"],
                       capture_output=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    r = subprocess.run([MEMREL, "report", "-q", "--out", tmp_path / "rep", forged],
                       capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr
    written = [tmp_path / "o.md"] + [p for p in (tmp_path / "rep").rglob("*")
                                     if p.suffix in (".html", ".md", ".svg")]
    assert len(written) > 5
    for path in written:
        data = path.read_bytes()
        assert b"\x1b" not in data and b"\x00" not in data and b"\x01" not in data, path
    assert b"\x1b" not in r.stdout


# --- Found by the ninth adversarial pass -----------------------------------------------------------

@needs_memrel
def test_cell_and_bench_outputs_are_not_the_library_or_the_bench_program(tmp_path):
    """c1-cell-out-is-plugin-library: `cell --out lib.so` wrote over the library its backend file
    named; c1-bench-logs-holding-bench-binary: `--bench L/bench-NAME.log --logs L` wrote the log
    over the memrel_bench it ran."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    shutil.copy(library, tmp_path / "lib.so")
    described = json.loads(read(os.path.join(ROOT, "benchmarks", "backends",
                                             "pluggable-host-example.json")))
    described["library"] = str(tmp_path / "lib.so")
    (tmp_path / "bk.json").write_text(json.dumps(described))
    before = read(tmp_path / "lib.so")
    r = subprocess.run([MEMREL, "cell", "--backend", "./bk.json", "--workload",
                        os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                        "--out", "./lib.so"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "--out ./lib.so", "is the input")
    assert read(tmp_path / "lib.so") == before
    bench = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    if not os.path.exists(bench):
        pytest.skip("memrel_bench is not built next to memrel")
    (tmp_path / "L").mkdir()
    shutil.copy(bench, tmp_path / "L" / "bench-host-malloc.log")
    before = read(tmp_path / "L" / "bench-host-malloc.log")
    r = subprocess.run([MEMREL, "bench", "-b", "host-malloc", "--quick", "--bench",
                        "L/bench-host-malloc.log", "-o", "o", "--logs", "L"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, "--logs", "is the input")
    assert read(tmp_path / "L" / "bench-host-malloc.log") == before


@needs_memrel
def test_list_says_descriptions_on_their_lines(tmp_path):
    """c9-workload-description-list-terminal, c9-backend-file-description-list-terminal: `list`
    printed an ESC sequence from a workload's or a backend file's description raw."""
    (tmp_path / "wd").mkdir()
    (tmp_path / "bd").mkdir()
    workload = json.loads(read(os.path.join(ROOT, "benchmarks", "workloads",
                                            "temp-then-delete.json")))
    workload["description"] = "w\u001b[2Jd"
    (tmp_path / "wd" / "w.json").write_text(json.dumps(workload))
    backend = json.loads(read(os.path.join(ROOT, "benchmarks", "backends",
                                           "pluggable-host-example.json")))
    backend["description"] = "b\u001b[2Jd"
    (tmp_path / "bd" / "b.json").write_text(json.dumps(backend))
    r = subprocess.run([MEMREL, "--workloads-dir", "wd", "--backends-dir", "bd", "list"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "w\\x1b[2Jd" in r.stdout and "b\\x1b[2Jd" in r.stdout


@needs_memrel
def test_markup_and_control_characters_from_descriptions_reach_no_page_or_chart(tmp_path):
    """c9-backend-file-description-report-md, c9-context-mark-label-report,
    c9-report-svg-control-char: a backend file's `<img onerror>` description reached report.md as
    markup; a mark label holding ESC went raw into the pages and made the SVG charts invalid XML."""
    import xml.dom.minidom

    described = json.loads(read(os.path.join(ROOT, "benchmarks", "backends",
                                             "pluggable-host-example.json")))
    described["library"] = os.path.join(os.path.dirname(MEMREL),
                                        "libmemrel_pluggable_host_example.so")
    described["description"] = "<img src=x onerror=alert(1)> <script>z</script>"
    (tmp_path / "bk.json").write_text(json.dumps(described))
    r = subprocess.run([MEMREL, "run", "-q", "-b", "./bk.json", "-w", "temp-then-delete", "-o",
                        "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(read(tmp_path / "r.json"))
    for cell in doc["cells"]:
        for mark in cell.get("marks", []):
            mark["label"] = "m\u001b[31m"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc))
    r = subprocess.run([MEMREL, "report", "-q", "--out", tmp_path / "rep", forged],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stderr
    for path in (tmp_path / "rep").rglob("*"):
        if path.suffix in (".html", ".md", ".svg"):
            data = path.read_bytes()
            assert b"\x1b" not in data and b"<img src=x" not in data and b"<script>z" not in data, path
        if path.suffix == ".svg":
            xml.dom.minidom.parse(str(path))


@needs_memrel
def test_no_output_replaces_an_interrupted_runs_journal(tmp_path):
    """c1-run-o-is-journal-of-other: `run -o a.json.journal` wrote over another run's journal, and
    that run's --resume was lost."""
    (tmp_path / "a.json.journal").write_text('{"schema": "memrel.journal/1"}\n')
    before = read(tmp_path / "a.json.journal")
    r = subprocess.run([MEMREL, "run", "-q", "-b", "null", "-w", "temp-then-delete", "-o",
                        "a.json.journal"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "-o a.json.journal", "journal")
    assert read(tmp_path / "a.json.journal") == before
