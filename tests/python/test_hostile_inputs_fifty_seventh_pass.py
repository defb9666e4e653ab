"""What the fifty-seventh adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-seventh pass"). Each test fails on the code before its fix."""

import os
import subprocess
import time

import pytest

from test_hostile_inputs import MEMREL, needs_memrel
from test_hostile_inputs_thirty_seventh_pass import _chattr, attributes_cleared  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_RUN = os.path.join(HERE, "..", "data", "host-run.json")
RMM_LOG = os.path.join(HERE, "..", "..", "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "null", "-w", RMM_LOG, "-o", "r.json"],
                                     ["report", HOST_RUN, "--out", "rep"]])
def test_an_append_only_tmpdir_is_said_and_nothing_is_left_in_it(tmp_path, attributes_cleared,
                                                                 command):
    """c2-tmpdir-append-only-import: under a TMPDIR marked chattr +a, `run -w log.csv` was exit 4
    "internal error: cannot prepare TMPDIR/memrel-new-X" and left that folder;
    c9-report-append-only-tmpdir-leftover: the report left Python's own probe file there."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    attributes_cleared.append(tmp)
    _chattr("+a", tmp)
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300, env=dict(os.environ, TMPDIR=str(tmp)))
    assert r.returncode == 4, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"TMPDIR ({tmp}): is append-only (chattr +a)" in r.stderr, r.stderr
    assert "internal error" not in r.stderr, r.stderr
    assert os.listdir(tmp) == []
    assert sorted(os.listdir(tmp_path)) == ["tmp"]


@needs_memrel
def test_a_report_folder_left_empty_by_a_killed_report_is_removed(tmp_path):
    """c9-kill-before-mark-report-tmp-left (arguable): a report killed between making rep.tmp-PID
    and marking it left it empty for good; only marked ones were removed. An empty one of a
    process that is gone now goes; one holding anything unmarked is a user's and stays."""
    (tmp_path / "rep.tmp-4194300").mkdir()  # above any pid_max in use: no such process
    (tmp_path / "rep.tmp-4194301").mkdir()
    (tmp_path / "rep.tmp-4194301" / "notes.txt").write_text("keep")
    r = subprocess.run([MEMREL, "-q", "report", HOST_RUN, "--out", "rep"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["rep", "rep.tmp-4194301"]


@needs_memrel
def test_an_old_empty_matplotlib_folder_is_removed_and_a_new_one_kept(tmp_path):
    """c9-kill-before-mark-matplotlib-folder-left: a report killed between making its
    memrel-matplotlib-X folder and marking it left it empty for good. One a minute old is no live
    report's and goes; a newer one may be a report's that is marking it, and stays."""
    tmp = tmp_path / "tmp"
    old, new = tmp / "memrel-matplotlib-old123", tmp / "memrel-matplotlib-new123"
    old.mkdir(parents=True)
    new.mkdir()
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    r = subprocess.run([MEMREL, "-q", "report", HOST_RUN, "--out", "rep"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300, env=dict(os.environ, TMPDIR=str(tmp)))
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp) == ["memrel-matplotlib-new123"]


@needs_memrel
def test_two_spellings_of_one_backend_setting_are_not_told_to_rename_a_trace(tmp_path):
    """c6-config-same-canonical (arguable): `-b 'host-malloc:trim_threshold=4KiB,
    host-malloc:trim_threshold=4096'` was refused with the workloads' hint "(a trace: trace
    import --name)"."""
    r = subprocess.run([MEMREL, "run", "-b",
                        "host-malloc:trim_threshold=4KiB,host-malloc:trim_threshold=4096",
                        "-w", "temp-then-delete", "-o", "r.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "trace import" not in r.stderr and "settings spelled two ways" in r.stderr, r.stderr
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_snapshot_segment_past_2_64_is_refused(tmp_path):
    """c7-snapshot-segment-block-past-2-64: a segment at 2^64-4096 holding a live block of 4096
    bytes at 2^64-100 was imported, exit 0, the block held at the start; the same block as an
    alloc entry is refused as ending past 2^64."""
    import pickle

    top = 1 << 64
    snapshot = {"device_traces": [[]], "segments": [
        {"device": 0, "address": top - 4096, "total_size": 1 << 20, "stream": 0,
         "blocks": [{"address": top - 100, "size": 4096, "state": "active_allocated"}]}]}
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(snapshot, protocol=4))
    r = subprocess.run([MEMREL, "-q", "trace", "import", "s.pickle", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "segments[0]: a segment of 1048576 bytes at 0xfffffffffffff000 ends past 2^64" in \
        r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["s.pickle"]
