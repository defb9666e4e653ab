"""What the twenty-sixth adversarial pass of issue 23 found (docs/inputs.md, "Twenty-sixth
pass"): each test fails on the code before its fix."""

import os
import subprocess

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, needs_memrel, scripts_module


@needs_memrel
@pytest.mark.parametrize("name", ["a?b.sqlite", "h.sqlite#x", "p%41.sqlite"])
def test_the_history_is_read_by_the_name_given(tmp_path, name):
    """c10-history-db-hash-reads-other-db, c10-history-db-question-mark-stray-file: the Python
    side opened the history as an unescaped URI: 'h.sqlite#x' read h.sqlite, 'a?b.sqlite' made a
    stray file 'a' and refused the history, '%' failed."""
    r = subprocess.run([MEMREL, "-q", "history", "--db", name, "add", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        db = scripts_module("memrel_history.changes").open_history(name)
        assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
        db.close()
    finally:
        os.chdir(cwd)
    assert sorted(os.listdir(tmp_path)) == [name]


@needs_memrel
def test_a_history_named_memory_is_a_file(tmp_path):
    """c10-history-db-named-memory-loses-runs: `--db :memory:` added every run to SQLite's
    in-memory database, exit 0, and left a file of that name with no run in it."""
    r = subprocess.run([MEMREL, "-q", "history", "--db", ":memory:", "add", HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "history", "--db", ":memory:", "list"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and "host-malloc/" in r.stdout, (r.stdout, r.stderr)


@needs_memrel
def test_a_new_history_named_near_the_limit_is_made(tmp_path):
    """c10-history-db-name-within-limit-fails: a new history's temporary name was its own name
    with a suffix, and SQLite's journal beside it passed the file system's 255 bytes: "unable to
    open database file" for names memrel allows (up to 239 bytes)."""
    name = "h" * 232 + ".sqlite"
    r = subprocess.run([MEMREL, "-q", "history", "--db", name, "add", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path)) == [name]
