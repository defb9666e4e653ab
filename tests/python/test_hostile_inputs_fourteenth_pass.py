"""What the fourteenth adversarial pass of issue 23 found and this session fixed before it ended
(docs/inputs.md, "Fourteenth pass"): each test fails on the code before its fix."""

import os
import pickle
import sys

import pytest

from test_hostile_inputs import memrel, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("command", [["list"], ["show", "a:b"]])
def test_a_history_db_that_is_a_device_is_refused_and_left_alone(tmp_path, command):
    """c2-history-*-chardev-journal: `history --db X list` with X a character device was SQLite's
    "disk I/O error", exit 4, and left X-journal beside it."""
    pytest.importorskip("sqlite3")
    os.symlink("/dev/null", tmp_path / "X")
    line = refused(memrel("-q", "history", "--db", "X", *command, cwd=tmp_path), "X")
    assert "character device" in line and "not a history database" in line
    assert sorted(os.listdir(tmp_path)) == ["X"]


@needs_memrel
def test_what_a_fake_interpreter_writes_is_not_shown(tmp_path):
    """c8-fakepy-traceback-relayed: an interpreter that answers the probe, prints a traceback of
    its own and exits 2 without running memrel's code: four lines."""
    fake = tmp_path / "fake-python"
    fake.write_text(f'#!/bin/sh\nif [ "$2" = "-c" ]; then exec {sys.executable} "$@"; fi\n'
                    'echo "Traceback (most recent call last):" >&2; echo "ImportError: boom" >&2\n'
                    'exit 2\n')
    fake.chmod(0o755)
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"segments": [], "device_traces": []}))
    r = memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace",
               env={"MEMREL_PYTHON": str(fake)}, cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "without running memrel's code" in lines[0], r.stderr
