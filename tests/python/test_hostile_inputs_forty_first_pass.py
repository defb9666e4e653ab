"""What the forty-first adversarial pass of issue 23 found (docs/inputs.md, "Forty-first pass"):
ab finding inside a round what bench and run refuse before anything runs, --cpus lists past the
machine, a shard matrix that is not the run's, a history figure no results file holds. Each test
fails on the code before its fix."""

import json
import os
import sqlite3
import subprocess

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, needs_memrel, refused

EXAMPLE = "pluggable-host-example"
QUICK_AB = ["--rounds", "5", "--looks", "1", "--quick", "--filter", f"^pair/{EXAMPLE}/warm/512/"]


def _memrel(cwd, *args, env=None):
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=cwd,
                          env=dict(os.environ, **(env or {})), timeout=180)


def _example_library_built():
    r = subprocess.run([MEMREL, "list", "--available-backends"], capture_output=True, text=True,
                       timeout=60)
    if EXAMPLE not in r.stdout.split():
        pytest.skip(f"{EXAMPLE} is not available in this build")


@needs_memrel
@pytest.mark.parametrize("how", ["inherited", "--reference-env", "--candidate-env"])
def test_ab_refuses_a_setting_the_backends_library_refuses_before_any_round(tmp_path, how):
    """c4-ab-env-slowdown-nan-exit4, c4-ab-reference-env-bad-value-exit4,
    c8-ab-candidate-env-bad-value-exit1: MEMREL_EXAMPLE_SLOWDOWN_NS=nan, which bench refuses
    before anything runs, made ab run a round and exit 4 (the reference's side) or 1, a
    "regression" (the candidate's). Refused first, exit 2, nothing left of --out."""
    _example_library_built()
    setting = "MEMREL_EXAMPLE_SLOWDOWN_NS=nan"
    env = {"MEMREL_EXAMPLE_SLOWDOWN_NS": "nan"} if how == "inherited" else None
    side = [] if how == "inherited" else [how, setting]
    r = _memrel(tmp_path, "ab", "-b", EXAMPLE, *side, *QUICK_AB, "--out", "ab", env=env)
    whose = {"inherited": "the reference's backend: ",
             "--reference-env": "the reference's backend (with --reference-env): ",
             "--candidate-env": "the candidate's backend (with --candidate-env): "}[how]
    # The backend file whose library refused it is named (the seventy-second pass).
    refused(r, whose, f"{EXAMPLE}.json: MEMREL_EXAMPLE_SLOWDOWN_NS: 'nan' is not whole nanoseconds")
    assert not (tmp_path / "ab").exists()


@needs_memrel
def test_ab_refuses_a_candidate_backend_whose_library_is_missing(tmp_path):
    """c8-ab-candidate-backend-missing-library-exit1: ab ran the reference's round, then called
    the candidate's missing library its regression, exit 1; bench -b refuses the file, exit 2."""
    backend = json.loads((open(os.path.join(ROOT, "benchmarks", "backends",
                                            f"{EXAMPLE}.json")).read()))
    backend["library"] = "/nonexistent/lib.so"
    (tmp_path / "missing.json").write_text(json.dumps(backend))
    r = _memrel(tmp_path, "ab", "-b", "host-malloc", "--candidate-backend", "missing.json",
                "--rounds", "5", "--looks", "1", "--quick", "--filter",
                "^pair/host-malloc/warm/512/", "--out", "ab")
    refused(r, "the candidate's backend: ", "missing.json: library: cannot load "
            "/nonexistent/lib.so")
    assert not (tmp_path / "ab").exists()


@needs_memrel
@pytest.mark.parametrize("shape", ["0,{bad}", "0-{bad}"])
def test_ab_refuses_a_cpu_list_holding_a_cpu_it_may_not_run_on(tmp_path, shape):
    """c4-ab-cpus-range-past-machine-accepted: `--cpus N` alone was refused, but `0,N` and `0-N`
    ran on CPU 0 alone, exit 0: the kernel drops the CPUs it lacks without a word."""
    allowed = os.sched_getaffinity(0)
    bad = max(allowed) + 3
    cpus = shape.format(bad=bad)
    r = _memrel(tmp_path, "ab", "-b", "null", "--rounds", "5", "--looks", "1", "--quick",
                "--filter", "^pair/null/warm/512/", "--cpus", cpus, "--out", "ab")
    refused(r, "--cpus: CPU ", "is not one memrel may run on here")
    assert not (tmp_path / "ab").exists()


@needs_memrel
def test_bench_without_b_refuses_a_folder_backend_whose_library_refuses_its_setting(tmp_path):
    """c4-bench-default-env-nan-silently-skips: with MEMREL_EXAMPLE_SLOWDOWN_NS=nan, run without
    -b exits 2 and bench without -b left the example out without a word, exit 0."""
    _example_library_built()
    r = _memrel(tmp_path, "bench", "--quick", "--filter", "^pair/null/warm/512/", "-o", "out",
                env={"MEMREL_EXAMPLE_SLOWDOWN_NS": "nan"})
    refused(r, "MEMREL_EXAMPLE_SLOWDOWN_NS: 'nan' is not whole nanoseconds")
    assert not (tmp_path / "out").exists()


@needs_memrel
def test_merge_refuses_a_shard_matrix_that_is_not_the_runs(tmp_path):
    """c5-merge-matrix-shrunk-drops-cell: both shards' matrix edited to leave a cell out (and the
    cell removed) merged into a run lacking it, exit 0: the matrix is every backend on every
    workload of the run's options."""
    for k in (1, 2):
        subprocess.run([MEMREL, "-q", "run", "-b", "null,host-malloc", "--include-null", "-w",
                        "single-large,temp-then-delete", "--shard", f"{k}/2", "-o", f"s{k}.json"],
                       check=True, capture_output=True, cwd=tmp_path, timeout=120)
    for k in (1, 2):
        shard = json.loads((tmp_path / f"s{k}.json").read_text())
        shard["context"]["shard"]["matrix"].remove("null/temp-then-delete")
        shard["cells"] = [c for c in shard["cells"]
                          if (c["backend"], c["workload"]) != ("null", "temp-then-delete")]
        (tmp_path / f"t{k}.json").write_text(json.dumps(shard))
    r = _memrel(tmp_path, "merge", "-o", "m.json", "t1.json", "t2.json")
    refused(r, "t1.json: context.shard.matrix: 3 cells, but options name 2 backend(s) and 2 "
            "workload(s), 4 cells")
    assert not (tmp_path / "m.json").exists()


@needs_memrel
@pytest.mark.parametrize("command", [["changes", "--match", "single-large:peak_reserved"],
                                     ["show", "host-malloc/single-large:peak_reserved"]])
def test_a_history_figure_beyond_2_53_is_refused(tmp_path, command):
    """c4-history-changes-huge-figure-no-change: a hand-set 1.7e308 (finite) overflowed Otava's
    arithmetic: a shift from about 1000 to it was no change point, exit 0. No figure memrel
    records is beyond 2^53."""
    run = json.loads(open(HOST_RUN).read())
    files = []
    for day in range(1, 9):
        run["context"]["started"] = f"2026-11-{day:02d}T00:00:00Z"
        run["context"]["finished"] = f"2026-11-{day:02d}T01:00:00Z"
        (tmp_path / f"r{day}.json").write_text(json.dumps(run))
        files.append(f"r{day}.json")
    subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", *files], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    db = sqlite3.connect(tmp_path / "h.sqlite")
    with db:
        db.execute("UPDATE figures SET value = 1.7e308 WHERE run_id > 4 AND metric = ?",
                   ("host-malloc/single-large:peak_reserved",))
    db.close()
    r = _memrel(tmp_path, "history", "--db", "h.sqlite", *command)
    refused(r, "host-malloc/single-large:peak_reserved", "is out of range (-2^53 to 2^53); not a "
            "memrel history")
