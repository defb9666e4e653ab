"""`memrel advise` interrupted keeps its finished cells and resumes (docs/advise.md, "Interrupted
and resumed"; docs/run-journal.md): its sweep is a run journaled in the --out folder, `advise
--resume` runs only the missing cells and is refused for another sweep, and a sweep with a failed
cell is exit 3, naming it. Host backends on a committed trace; a cell is held with
MEMREL_INJECT_FAULT (harness/execution/cell.cpp) so that the signal comes after N cells.

Run from the repository root, after a build: python3 -m pytest -q tests/python/test_advise_resume.py
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, memrel_binary

MEMREL = memrel_binary()
pytestmark = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/ (build it, or set MEMREL_BINARY)")
TRACE_NAME = "trace-rmm-log-convnet-on-rmm-pool"
TRACE = os.path.join(ROOT, "benchmarks", "workloads", TRACE_NAME + ".memtrace")
# Three configurations, one name each (canonical), in the sweep's order; the third is held.
SWEEP = ["host-malloc", "host-malloc:trim_threshold=0", "host-malloc-retain"]
HELD = SWEEP[2]
# The host replay of a device trace is scaled to fit this (docs/advise.md): small, fast cells.
OPTIONS = ["--host-capacity", "64MiB", "--timeout", "120"]


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMREL_")}
    env["MEMREL_PYTHON"] = sys.executable
    env["MPLBACKEND"] = "Agg"
    return dict(env, **extra)


def advise(out, *args, backends=SWEEP, env=None):
    return subprocess.run([MEMREL, "advise", TRACE, "-b", ",".join(backends), "--out", str(out),
                           *OPTIONS, *args], capture_output=True, text=True,
                          env=env or clean_env(), timeout=600)


def journal_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]


def one_line_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def interrupted_advise(tmp_path, sig):
    """An advise stopped by `sig` while its third cell runs: the first two are journaled."""
    out = tmp_path / "advise"
    journal = out / "results.json.journal"
    env = clean_env(MEMREL_INJECT_FAULT="hang", MEMREL_INJECT_FAULT_CELL=f"{HELD}/{TRACE_NAME}")
    runner = subprocess.Popen([MEMREL, "advise", TRACE, "-b", ",".join(SWEEP), "--out", str(out),
                               *OPTIONS], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    end = time.monotonic() + 300
    while time.monotonic() < end and not (journal.exists() and len(journal_lines(journal)) == 3):
        time.sleep(0.05)
    assert journal.exists() and len(journal_lines(journal)) == 3, "two cells never finished"
    time.sleep(0.3)  # the held cell has started
    runner.send_signal(sig)
    _, stderr = runner.communicate(timeout=30)
    return runner.returncode, stderr, out, journal


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_advise_keeps_its_cells_and_resume_runs_only_the_rest(tmp_path, sig):
    code, stderr, out, journal = interrupted_advise(tmp_path, sig)
    if sig == signal.SIGKILL:  # a crash: no code runs, the journal is on disk all the same
        assert code == -signal.SIGKILL
    else:
        assert code == 128 + sig, stderr
        last = stderr.strip().splitlines()[-1]
        assert f"interrupted by {signal.Signals(sig).name}" in last and "--resume" in last, last
    records = journal_lines(journal)[1:]
    assert [(r["index"], r["cell"]["backend"], r["cell"]["status"]) for r in records] == \
        [(0, SWEEP[0], "ok"), (1, SWEEP[1], "ok")]
    assert not (out / "results.json").exists() and not (out / "advise.json").exists()
    kept = journal.read_bytes()

    # Another sweep (another grid, other backends, another option) is not this one's resume;
    # without --resume the journal is not started over.
    one_line_error(advise(out, "--resume", backends=SWEEP[:2]), "results.json.journal", "another run",
                   "backends")
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({"schema": "memrel.advise-grid/1", "configurations": ["host-malloc:top_pad=0"]}))
    one_line_error(advise(out, "--resume", "--grid", str(grid)), "another run", "backends")
    one_line_error(subprocess.run([MEMREL, "advise", TRACE, "-b", ",".join(SWEEP), "--out", str(out),
                                   "--host-capacity", "32MiB", "--timeout", "120", "--resume"],
                                  capture_output=True, text=True, env=clean_env(), timeout=120),
                   "another run", "host_capacity_bytes")
    one_line_error(advise(out), "results.json.journal", "--resume")
    one_line_error(subprocess.run([MEMREL, "advise", TRACE, "--resume"], capture_output=True, text=True,
                                  env=clean_env(), timeout=60), "--resume", "--out")
    one_line_error(advise(tmp_path / "never", "--resume"), "no journal to resume")
    assert not (tmp_path / "never").exists()
    assert journal.read_bytes() == kept

    r = advise(out, "--resume")
    assert r.returncode == 0, r.stderr
    assert "resuming" in r.stderr and "2 of 3 cells already finished" in r.stderr
    assert not journal.exists()
    results = json.loads((out / "results.json").read_text())
    assert [c["backend"] for c in results["cells"]] == SWEEP
    # The journal's cells are the results' cells, not a second run of them.
    assert results["cells"][:2] == [r["cell"] for r in records]
    assert results["context"]["resumed"]
    resumed = json.loads((out / "advise.json").read_text())
    assert [p["backend"] for p in resumed["points"]] == SWEEP

    # The frontier and the recommendation are those of the cells alone: the same cells, all
    # from a journal (an advise killed after its last cell), give the same document, byte for byte.
    again = tmp_path / "again"
    again.mkdir()
    header = journal_lines_from(kept)[0]
    with open(again / "results.json.journal", "w") as f:
        f.write(json.dumps(header) + "\n")
        for index, cell in enumerate(results["cells"]):
            f.write(json.dumps({"index": index, "cell": cell}) + "\n")
    r = advise(again, "--resume")
    assert r.returncode == 0, r.stderr
    assert "3 of 3 cells already finished" in r.stderr
    assert (again / "advise.json").read_bytes() == (out / "advise.json").read_bytes()

    # And against an advise never interrupted: the same configurations, the same bytes.
    whole = tmp_path / "whole"
    r = advise(whole)
    assert r.returncode == 0, r.stderr
    uninterrupted = json.loads((whole / "advise.json").read_text())
    bytes_of = lambda doc: [(p["backend"], p["status"], p["peak_reserved_bytes"]) for p in doc["points"]]
    assert bytes_of(resumed) == bytes_of(uninterrupted)
    assert resumed["baseline"] == uninterrupted["baseline"]


def journal_lines_from(data):
    return [json.loads(line) for line in data.decode().splitlines()]


def test_an_advise_with_a_failed_cell_is_exit_3_and_names_it(tmp_path):
    out = tmp_path / "advise"
    env = clean_env(MEMREL_INJECT_FAULT="abort", MEMREL_INJECT_FAULT_CELL=f"{HELD}/{TRACE_NAME}")
    r = advise(out, env=env)
    assert r.returncode == 3, r.stderr
    assert f"1 of 3 configurations failed: {HELD} (crashed)" in r.stderr.strip().splitlines()[-1]
    advice = json.loads((out / "advise.json").read_text())
    assert [p["status"] for p in advice["points"]] == ["ok", "ok", "crashed"]
    assert advice["recommendation"]["backend"] != HELD
    assert not (out / "results.json.journal").exists()
