"""What the seventieth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventieth pass"). The refusals' tests fail on the code before their fix; the other keeps the fix
from refusing a file that is the folder's own workload."""

import json
import os
import shutil
import subprocess
import time

from test_hostile_inputs import MEMREL, ROOT, needs_memrel

WORKLOADS = os.path.join(ROOT, "benchmarks", "workloads")


def _run(tmp_path, *words):
    return subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", *words, "-o", "out.json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


@needs_memrel
def test_a_bare_workload_name_that_is_also_a_file_here_is_refused(tmp_path):
    """c6-w-name-shadowed-by-cwd-file: `run -w temp-then-delete` with a file ./temp-then-delete
    holding single-large ran single-large, exit 0, where the folder's temp-then-delete was meant
    (and `-b` takes the name first). Both are named; ./NAME or the folder's path says which."""
    shutil.copy(os.path.join(WORKLOADS, "single-large.json"), tmp_path / "temp-then-delete")
    r = _run(tmp_path, "-w", "temp-then-delete")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert "./temp-then-delete" in r.stderr and "temp-then-delete.json" in r.stderr, r.stderr
    assert not (tmp_path / "out.json").exists()
    r = _run(tmp_path, "-w", "./temp-then-delete")
    assert r.returncode == 0, r.stderr
    cells = json.load(open(tmp_path / "out.json"))["cells"]
    assert [c["workload"] for c in cells] == ["single-large"]


@needs_memrel
def test_a_file_here_that_is_the_folders_own_workload_is_taken(tmp_path):
    """Run from inside the workloads folder, `-w NAME.json` names the folder's own file: one
    workload, not two."""
    shutil.copytree(WORKLOADS, tmp_path / "wd", ignore=shutil.ignore_patterns("*.memtrace"))
    r = subprocess.run([MEMREL, "-q", "--workloads-dir", ".", "run", "-b", "host-malloc", "-w",
                        "temp-then-delete.json", "-o", "../out.json"], capture_output=True,
                       text=True, cwd=tmp_path / "wd", timeout=300)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_a_warm_up_time_with_a_leading_point_is_taken_as_min_time_is(tmp_path):
    """c4-warmup-time-leading-point-refused (arguable): `bench --min-time .5` was taken and
    `--bench-arg=--benchmark_min_warmup_time=.0001` refused, "not in digits without a unit";
    one spelling rule for seconds. A bare point is still no number."""
    for value, code in ((".0001", 0), (".", 2), (".e1", 2)):
        r = subprocess.run([MEMREL, "-q", "bench", "-b", "null", "--quick", "--filter",
                            "^pair/null/warm/512/", "-o", f"out{code}{len(value)}",
                            f"--bench-arg=--benchmark_min_warmup_time={value}"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert r.returncode == code, (value, r.stderr)


@needs_memrel
def test_a_resume_of_a_live_run_whose_journal_was_replaced_is_refused(tmp_path):
    """c5-resume-live-after-journal-replaced (left open by the pass, fixed the session after): a
    live run's journal replaced by an edited copy (an editor's save by rename) is a file the run
    does not lock, and `--resume` ran the cells again beside it. The journal names the run's
    process; the resume asks whether it still goes."""
    env = dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS="1000000", TMPDIR=str(tmp_path))
    run = [MEMREL, "-q", "run", "-b", "pluggable-host-example,host-malloc", "-w",
           "temp-then-delete,trace-transformer-varying-length", "-o", "j.json"]
    first = subprocess.Popen(run, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        journal = tmp_path / "j.json.journal"
        deadline = time.monotonic() + 120
        while not (journal.exists() and journal.read_bytes().endswith(b"\n")):
            assert first.poll() is None and time.monotonic() < deadline, "no journal was started"
            time.sleep(0.05)
        shutil.copy(journal, tmp_path / "edited")
        os.replace(tmp_path / "edited", journal)
        r = subprocess.run(run + ["--resume"], capture_output=True, text=True, cwd=tmp_path,
                           env=env, timeout=120)
        assert r.returncode == 2, r.stderr
        assert first.poll() is None, "the first run ended before the resume: nothing was shown"
        assert r.stderr.count("\n") == 1, r.stderr
        assert f"in use by a run that is still going (process {first.pid}, whose journal was replaced" in r.stderr
        assert not (tmp_path / "j.json").exists()
    finally:
        first.kill()
        first.wait()
