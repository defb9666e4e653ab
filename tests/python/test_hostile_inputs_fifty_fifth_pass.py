"""What the fifty-fifth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-fifth pass"). Each test fails on the code before its fix."""

import os
import signal
import subprocess
import time

import pytest

from test_hostile_inputs import MEMREL, needs_memrel

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_RUN = os.path.join(HERE, "..", "data", "host-run.json")


@needs_memrel
@pytest.mark.parametrize("how", ["--bench-arg", "BENCHMARK_MIN_WARMUP_TIME"])
def test_a_warm_up_time_with_a_unit_is_refused_by_memrel(tmp_path, how):
    """c4-bench-arg-warmup-s-suffix: memrel took `--benchmark_min_warmup_time=3s` (a trailing s
    stripped), which memrel_bench does not read: as --bench-arg it refused it in its own words;
    as BENCHMARK_MIN_WARMUP_TIME=3s it ignored it, no warm-up, exit 0."""
    args = [MEMREL, "-q", "bench", "-b", "null", "--quick", "-o", "bo"]
    env = dict(os.environ)
    if how == "--bench-arg":
        args.append("--bench-arg=--benchmark_min_warmup_time=3s")
    else:
        env["BENCHMARK_MIN_WARMUP_TIME"] = "3s"
    r = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "without a unit" in r.stderr and ("--bench-arg" in r.stderr or how in r.stderr), r.stderr
    assert os.listdir(tmp_path) == []


def matplotlib_folders(tmp):
    return [n for n in os.listdir(tmp) if n.startswith("memrel-matplotlib-")]


@needs_memrel
def test_a_report_part_killed_from_outside_leaves_no_matplotlib_folder(tmp_path):
    """c8-report-part-killed-leaves-matplotlib-folder: the report's memrel-matplotlib-* folder in
    TMPDIR was removed only as the part exited: a part killed from outside left it for good."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    report = subprocess.Popen([MEMREL, "-q", "report", HOST_RUN, "--out", "rep"], cwd=tmp_path,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        deadline = time.monotonic() + 60
        while not matplotlib_folders(tmp) and report.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        parts = subprocess.run(["pgrep", "-P", str(report.pid)], capture_output=True,
                               text=True).stdout.split()
        if not parts or not matplotlib_folders(tmp):
            pytest.skip("the report ended before its part could be killed")
        for pid in parts:
            os.kill(int(pid), signal.SIGKILL)
    finally:
        _, stderr = report.communicate(timeout=120)
    assert report.returncode == 4, stderr
    assert matplotlib_folders(tmp) == [], stderr


@needs_memrel
def test_a_later_report_removes_abandoned_matplotlib_folders_and_keeps_others(tmp_path):
    """c8-report-part-killed-leaves-matplotlib-folder: with memrel itself SIGKILLed, no one is left
    to remove the folder; the next report removes every one no report holds (unlocked, holding
    the marker and font lists only), as trace import removes abandoned memrel-run-* folders."""
    tmp = tmp_path / "tmp"
    abandoned = tmp / "memrel-matplotlib-abc123"
    users = tmp / "memrel-matplotlib-notes"
    unmarked = tmp / "memrel-matplotlib-unmarked"
    for folder in (abandoned, users, unmarked):
        folder.mkdir(parents=True)
        (folder / "fontlist-v390.json").write_text("{}")
    for folder in (abandoned, users):
        (folder / ".memrel-report-partial").write_text("")
    (users / "notes.txt").write_text("mine")
    r = subprocess.run([MEMREL, "-q", "report", HOST_RUN, "--out", "rep"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300, env=dict(os.environ, TMPDIR=str(tmp)))
    assert r.returncode == 0, r.stderr
    assert sorted(matplotlib_folders(tmp)) == ["memrel-matplotlib-notes",
                                               "memrel-matplotlib-unmarked"]
    assert (users / "notes.txt").read_text() == "mine"
