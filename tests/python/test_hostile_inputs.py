"""The second round of hostile and careless input (issue 23), for memrel's Python parts and the
command line that runs them: an output that is an input or not a regular file (docs/inputs.md,
"Outputs"), thresholds that would switch a rule off ("Numbers"), and code from the working
folder ("Code"). Each is refused with exit 2 and one line, and nothing already there is lost."""

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import HOST_RUN, ROOT, SCRIPTS

RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
ENTRY = os.path.join(SCRIPTS, "memrel_entry.py")


def memrel_binary():
    if os.environ.get("MEMREL_BINARY"):
        return os.environ["MEMREL_BINARY"]
    for preset in ("ci", "default", "gpu"):
        path = os.path.join(ROOT, "build", preset, "memrel")
        if os.access(path, os.X_OK):
            return path
    return None


MEMREL = memrel_binary()
needs_memrel = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/")


def python(package, *args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=SCRIPTS, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, ENTRY, package, *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=300)


def refused(r, *words):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


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


def test_report_out_empty_is_one_line(tmp_path):
    refused(python("memrel_report", "--out", "", HOST_RUN), "empty path")


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
