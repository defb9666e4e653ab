"""What the seventy-fourth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-fourth pass"). Each test fails on the code before its fix."""

import json
import os
import shutil
import sqlite3
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

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
