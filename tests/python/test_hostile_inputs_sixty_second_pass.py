"""What the sixty-second adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Sixty-second pass"). Each test fails on the code before its fix."""

import os
import shutil
import socket
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel

WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")


def memrel(tmp_path, *args):
    return subprocess.run([MEMREL, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)


@pytest.fixture
def bound_sockets(tmp_path):
    """Unix sockets bound at the given names in tmp_path, closed afterwards."""
    made = []

    def bind(*names):
        for name in names:
            s = socket.socket(socket.AF_UNIX)
            s.bind(str(tmp_path / name))
            made.append(s)

    yield bind
    for s in made:
        s.close()


@needs_memrel
@pytest.mark.parametrize("command", [
    ["validate", "s.json"], ["compare", "s.json", "s.json"],
    ["run", "-b", "null", "-w", "s.json", "-o", "r.json"],
    ["run", "-b", "s.json", "-w", "w.json", "-o", "r.json"],
    ["history", "--db", "h.sqlite", "add", "s.json"], ["trace", "show", "s.json"],
    ["trace", "import", "s.csv", "-o", "x.memtrace"], ["report", "--out", "rp", "s.json"],
    ["run", "-b", "null", "-w", "w.json", "-o", "r.json", "--resume"]])
def test_a_socket_given_as_an_input_is_named_a_socket(tmp_path, bound_sockets, command):
    """c2-socket-input-not-named: a Unix socket where memrel reads a file was "cannot open
    workload (No such device or address)" (or results file, backend file, trace, journal), where
    docs/inputs.md promises the kind named, as for a FIFO."""
    shutil.copy(WORKLOAD, tmp_path / "w.json")
    bound_sockets("s.json", "s.csv", "r.json.journal")
    r = memrel(tmp_path, *command)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "a socket, not a regular file" in r.stderr, r.stderr
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "rp").exists()


HOST_BENCH = os.path.join(ROOT, "tests", "data", "host-bench.json")
SUBJECT = "pair/host-malloc/warm/512/manual_time"


def _scaled_bench(src, dst, factor, started=None):
    import json

    with open(src) as f:
        doc = json.load(f)
    if started:
        doc["context"]["memrel_started"] = started
        doc["context"]["date"] = started.replace("Z", "+00:00")
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration" and (started or b["name"] == SUBJECT):
            b["real_time"] *= factor
    with open(dst, "w") as f:
        json.dump(doc, f)


@needs_memrel
def test_a_change_from_a_tiny_baseline_reads_as_a_percentage(tmp_path):
    """c4-compare-latency-change-from-tiny-baseline-garbled: a baseline real_time of 1e-300 times
    its figure made compare's change a 62-digit number cut off, without its %."""
    import json

    _scaled_bench(HOST_BENCH, tmp_path / "base.json", 1e-300)
    r = memrel(tmp_path, "compare", "base.json", HOST_BENCH, "--json", "v.json")
    assert r.returncode in (0, 1), r.stderr
    changes = []

    def walk(x):
        if isinstance(x, dict):
            if x.get("subject") == SUBJECT and x.get("metric") == "real_time":
                changes.append(x["change"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads((tmp_path / "v.json").read_text()))
    assert changes, "no real_time change of the subject"
    for change in changes:
        assert change.endswith("%") and len(change) < 20, change
    assert changes[0] in r.stdout


@needs_memrel
def test_a_history_change_from_a_tiny_mean_reads_as_a_percentage(tmp_path):
    """c4-history-changes-percent-300-digits: the same tiny mean before a shift printed the change
    as a 300-digit percentage in `history changes` (and the report's history pages)."""
    for i in range(10):
        _scaled_bench(HOST_BENCH, tmp_path / f"b{i}.json", 1e-300 if i < 5 else 1,
                      started=f"2026-11-{i + 10:02d}T00:00:00Z")
        assert memrel(tmp_path, "history", "--db", "h.sqlite", "add", f"b{i}.json").returncode == 0
    r = memrel(tmp_path, "history", "--db", "h.sqlite", "changes", "--min-runs", "2")
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if "real_time" in line]
    assert rows, r.stdout
    for row in rows:
        change = row.split("|")[7].strip()
        assert change.endswith("%") and len(change) < 20, change


@needs_memrel
@pytest.mark.parametrize("exit_code", [1, 3])
def test_a_refusal_stays_the_one_line_whatever_a_wrapper_exits_with(tmp_path, exit_code):
    """c8-python-wrapper-exit1-after-refusal-two-lines: a MEMREL_PYTHON wrapper that exited 1
    after memrel's code refused its input (exit 2) gave two lines and exit 4, where a wrapper
    exiting 0 gave the refusal's one line and exit 2."""
    import sys

    wrapper = tmp_path / "py.sh"
    wrapper.write_text(f'#!/bin/sh\nfor a in "$@"; do [ "$a" = -c ] && exec {sys.executable} "$@"; '
                       f'done\n{sys.executable} "$@"; exit {exit_code}\n')
    wrapper.chmod(0o755)
    (tmp_path / "bad.csv").write_text("not an RMM log\n")
    r = subprocess.run([MEMREL, "trace", "import", "bad.csv", "-o", "x.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_PYTHON=str(wrapper)))
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "bad.csv" in r.stderr, r.stderr
    assert not (tmp_path / "x.memtrace").exists()
