"""What the seventy-fourth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-fourth pass"). Each test fails on the code before its fix."""

import json
import os
import shutil
import sqlite3
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused
from test_hostile_inputs_thirty_seventh_pass import _chattr, attributes_cleared  # noqa: F401

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")


def _history_with_a_hot_journal(tmp_path):
    """h.sqlite as a kill in the middle of a transaction leaves it: the database changed in
    part, and its rollback journal (h.sqlite-journal) still there."""
    subprocess.run([MEMREL, "history", "--db", "src.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    c = sqlite3.connect(tmp_path / "src.sqlite", isolation_level=None)
    c.execute("PRAGMA journal_mode=DELETE")
    c.execute("PRAGMA cache_size=1")
    c.execute("BEGIN")
    c.execute("DELETE FROM figures")
    c.execute("CREATE TABLE junk(x)")
    for _ in range(200):
        c.execute("INSERT INTO junk VALUES (?)", (b"x" * 4000,))
    shutil.copy(tmp_path / "src.sqlite", tmp_path / "h.sqlite")
    shutil.copy(tmp_path / "src.sqlite-journal", tmp_path / "h.sqlite-journal")
    c.execute("ROLLBACK")
    c.close()


@needs_memrel
@pytest.mark.parametrize("command", [["report", "--out", "rep", "--history", "h.sqlite"],
                                     ["report", "--out", "rep", "--history=h.sqlite"],
                                     ["history", "--db", "h.sqlite", "changes"]],
                         ids=["report", "report-equals", "history-changes"])
def test_a_history_left_with_a_hot_journal_is_rolled_back_by_every_reader(tmp_path, command):
    """c9-hot-journal-readers: a history with a hot rollback journal (a `history add` killed in
    its transaction) was rolled back by `history list` and `show`, as docs/inputs.md promises
    of the next command that opens it, but `report --history` and `history changes` (Python,
    reading it read-only) said SQLite's "attempt to write a readonly database", exit 2. memrel
    rolls the journal back before a Python reader opens the history."""
    _history_with_a_hot_journal(tmp_path)
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "h.sqlite-journal").exists()
    c = sqlite3.connect(tmp_path / "h.sqlite")
    assert c.execute("SELECT count(*) FROM figures").fetchone()[0] > 0
    assert c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'junk'").fetchone()[0] == 0
    c.close()


@needs_memrel
@pytest.mark.parametrize("how", ["run", "validate"])
def test_a_history_given_as_a_workload_is_named(tmp_path, how):
    """c10-sqlite-as-workload (arguable): a history given where a workload goes was "malformed
    JSON at byte 16: a NUL byte"; every other reader names it as a history."""
    subprocess.run([MEMREL, "history", "--db", "hist.json", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    command = (["run", "-b", "host-malloc", "-w", "./hist.json", "-o", "r.json"] if how == "run"
               else ["validate", "hist.json"])
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    refused(r, "hist.json", "an SQLite database (it begins with \"SQLite format 3\"), not a "
                            "workload")


@needs_memrel
@pytest.mark.parametrize("command", [["history", "--db", "HJ/h.sqlite", "list"],
                                     ["history", "--db", "HJ/h.sqlite", "changes"],
                                     ["report", "--out", "rep", "--history", "HJ/h.sqlite"]],
                         ids=["history-list", "history-changes", "report"])
def test_a_hot_journal_in_an_immutable_folder_is_one_refusal_for_every_reader(
        tmp_path, attributes_cleared, command):
    """c2-hot-journal-immutable-folder-reader (the seventy-fifth pass): with the history's
    folder immutable (chattr +i) and a hot journal in it, `history list` said "cannot write
    (disk I/O error ...); nothing added", exit 4, and `history changes` and `report --history`
    SQLite's "attempt to write a readonly database", exit 2. One refusal, exit 2, naming the
    journal and the attribute, for every reader."""
    _history_with_a_hot_journal(tmp_path)
    (tmp_path / "HJ").mkdir()
    for name in ("h.sqlite", "h.sqlite-journal"):
        os.rename(tmp_path / name, tmp_path / "HJ" / name)
    attributes_cleared.append(tmp_path / "HJ")
    _chattr("+i", tmp_path / "HJ")
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    refused(r, "HJ/h.sqlite-journal: the journal of a write that was stopped",
            "its folder is immutable (chattr +i)")
    assert (tmp_path / "HJ" / "h.sqlite-journal").exists()


@needs_memrel
def test_a_history_python_that_dies_of_a_signal_is_said_so(tmp_path):
    """c8-report-history-python-signal-said-as-exit-minus-11 (the seventy-fifth pass, arguable):
    `report --history` with a MEMREL_HISTORY_PYTHON that dies of SIGSEGV said "(exit -11, ...)",
    a status no process has; `history changes` says "died of signal 11"."""
    python = tmp_path / "segvpy"
    python.write_text("#!/bin/sh\nkill -SEGV $$\n")
    python.chmod(0o755)
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    r = subprocess.run([MEMREL, "-q", "report", "--history", "h.sqlite", "--out", "rep", HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, MEMREL_HISTORY_PYTHON=str(python)))
    refused(r, "MEMREL_HISTORY_PYTHON", "died of signal 11", exit_code=4)
    assert "exit -11" not in r.stderr
