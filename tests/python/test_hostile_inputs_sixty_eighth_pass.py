"""What the sixty-eighth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Sixty-eighth pass"). Each test fails on the code before its fix."""

import json
import os
import sqlite3
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")


def _wal_history(tmp_path):
    """h.sqlite, a history of one run, switched to WAL mode (its -wal and -shm gone again)."""
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    c = sqlite3.connect(tmp_path / "h.sqlite")
    assert c.execute("PRAGMA journal_mode=wal").fetchone()[0] == "wal"
    c.close()
    assert not (tmp_path / "h.sqlite-shm").exists()
    run = json.load(open(HOST_RUN))
    run["context"]["started"] = "2026-01-02T00:00:00Z"
    run["context"]["finished"] = "2026-01-02T00:00:01Z"
    (tmp_path / "b.json").write_text(json.dumps(run))


COMMANDS = [["history", "--db", "h.sqlite", "add", "b.json"], ["history", "--db", "h.sqlite", "list"],
            ["history", "--db", "h.sqlite", "show", "x"],
            ["history", "--db", "h.sqlite", "changes", "--metric", "x"],
            ["report", "--history", "h.sqlite", "--out", "rep", HOST_RUN]]


@needs_memrel
@pytest.mark.parametrize("linked", [True, False], ids=["hard-link", "a-users-file"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(w for w in c[:4] if "." not in w))
def test_a_users_file_at_the_shared_memory_index_is_not_written(tmp_path, command, linked):
    """c2-history-shm-hardlink-overwritten, c2-history-readers-shm-overwritten: with a history
    in WAL mode and h.sqlite-shm a hard link to a user's file (or a user's file of that name),
    `history add`, `list`, `show` and `report --history` overwrote it with SQLite's shared memory,
    exit 0, where a user's file at -wal or -journal is refused."""
    _wal_history(tmp_path)
    precious = b"precious user data\n" * 4
    (tmp_path / "victim.txt").write_bytes(precious)
    if linked:
        os.link(tmp_path / "victim.txt", tmp_path / "h.sqlite-shm")
    else:
        (tmp_path / "h.sqlite-shm").write_bytes(precious)
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "h.sqlite-shm" in r.stderr, r.stderr
    assert (tmp_path / "victim.txt").read_bytes() == precious
    assert (tmp_path / "h.sqlite-shm").read_bytes() == precious


@needs_memrel
def test_a_wal_history_with_its_own_shared_memory_index_is_read(tmp_path):
    """SQLite's own -shm, made by a connection that is still open, is taken by every reader."""
    _wal_history(tmp_path)
    holder = sqlite3.connect(tmp_path / "h.sqlite")
    try:
        holder.execute("SELECT count(*) FROM runs").fetchone()
        assert (tmp_path / "h.sqlite-shm").stat().st_size > 0
        for command in (COMMANDS[1], COMMANDS[4]):
            r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True,
                               cwd=tmp_path, timeout=300)
            assert r.returncode == 0, (command, r.stderr)
    finally:
        holder.close()


def _with_huge_number(tmp_path, digits):
    """host-run.json with an extra context key holding an integer of `digits` digits."""
    text = open(HOST_RUN).read()
    text = text.replace('"context": {', '"context": {"x": 1' + "0" * (digits - 1) + ", ", 1)
    assert '"x": 1000' in text
    (tmp_path / "huge.json").write_text(text)
    return tmp_path / "huge.json"


@needs_memrel
@pytest.mark.parametrize("digits", [400, 5000])
def test_the_report_refuses_an_integer_no_double_holds_in_one_line(tmp_path, digits):
    """c4-report-5000-digit-integer-exit4: an integer of 5000 digits anywhere in a results file
    was "internal error: ValueError: Exceeds the limit (4300 digits)", exit 4; compare and
    validate refuse it (a number no double holds), exit 2."""
    huge = _with_huge_number(tmp_path, digits)
    r = subprocess.run([MEMREL, "-q", "report", "--out", "rep", huge], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "huge.json" in r.stderr, r.stderr
    assert "number overflow" in r.stderr and len(r.stderr) < 300, r.stderr


@needs_memrel
@pytest.mark.parametrize("command", [["validate"], ["compare", HOST_RUN], ["report", "--out", "rep"]])
def test_a_number_too_large_is_not_echoed_whole(tmp_path, command):
    """c4-cpp-reader-echoes-huge-number (arguable): a number of 300,000 digits was refused in one
    line 300 KB long, the whole number echoed; it is cut, its length said."""
    huge = _with_huge_number(tmp_path, 300_000)
    r = subprocess.run([MEMREL, "-q", *command, huge], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 2, r.stderr[:300]
    assert r.stderr.count("\n") == 1 and len(r.stderr) < 300, r.stderr[:300]
    assert "300000 characters" in r.stderr, r.stderr
