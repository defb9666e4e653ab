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


TRACE = os.path.join(HERE, "..", "..", "benchmarks", "workloads",
                     "trace-rmm-log-convnet-on-rmm-pool.memtrace")
RMM_LOG = os.path.join(HERE, "..", "..", "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


@needs_memrel
@pytest.mark.parametrize("last", [".", ".."])
@pytest.mark.parametrize("command", [
    ["run", "-b", "null", "-w", "temp-then-delete", "-o", "a/b/{last}"],
    ["merge", "-o", "a/b/{last}", HOST_RUN, os.path.join(HERE, "..", "data", "host-trace-run.json")],
    ["advise", TRACE, "-b", "null", "--out", "adv", "--json", "a/b/{last}"],
    ["trace", "import", RMM_LOG, "-o", "a/b/{last}"],
    ["compare", HOST_RUN, HOST_RUN, "--json", "a/b/{last}"],
])
def test_an_output_whose_last_name_is_a_dot_is_refused_before_anything_is_made(tmp_path, command,
                                                                              last):
    """c2-run-out-dot-makes-folders-and-journal, c2-merge-out-dot-leaves-folders,
    c2-advise-json-dot-after-sweep: `run -o a/b/.` made a/b, ran every cell into `a/b/..journal`
    and then refused the folder; merge left a/b; advise ran its sweep, then refused --json."""
    args = [a.format(last=last) for a in command]
    r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"names a folder (its last name is {last})" in r.stderr, r.stderr
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("make, words", [
    (lambda p: os.mkfifo(p), "a FIFO, not a regular file: not a history database"),
    (lambda p: os.mkdir(p), "a folder, not a regular file: not a history database"),
    (lambda p: open(p, "w").close(), "an empty file, not a history database"),
])
@pytest.mark.parametrize("reader", ["report", "changes"])
def test_the_python_readers_name_what_is_where_a_history_should_be(tmp_path, make, words, reader):
    """c10-history-python-misnames-fifo-folder-empty: `report --history` and `history changes`
    said "no history database here" of a FIFO or a folder, and "an SQLite database, but not a
    memrel history" of an empty file, where `history list` names each."""
    make(tmp_path / "h.sqlite")
    args = (["report", "--history", "h.sqlite", "--out", "rep"] if reader == "report" else
            ["history", "changes", "--db", "h.sqlite"])
    r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert f"h.sqlite: {words}" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["h.sqlite"]


@needs_memrel
def test_trace_import_tells_a_memrel_trace_by_its_magic_not_its_name(tmp_path):
    """c10-import-trace-named-pickle (arguable): a memrel trace named t.pickle was "truncated or
    malformed pickle (UnicodeDecodeError ...)": the kind taken from the name."""
    with open(TRACE, "rb") as src:
        (tmp_path / "t.pickle").write_bytes(src.read())
    r = subprocess.run([MEMREL, "-q", "trace", "import", "t.pickle", "-o", "o.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "t.pickle: a memrel trace already (it begins with MEMTRACE)" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["t.pickle"]
