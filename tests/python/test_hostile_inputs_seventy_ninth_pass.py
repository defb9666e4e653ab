"""What the seventy-ninth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-ninth pass"). Each test fails on the code before its fix."""

import os
import resource
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_bench, needs_memrel, refused
from test_hostile_inputs_seventy_eighth_pass import HOST_RUN, RMM_LOG, _memrel


def _a_history(tmp_path, name):
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    os.rename(tmp_path / "h.sqlite", tmp_path / name)


def _one_cell_then_stop():
    """`ulimit -n 9`: the log imports, its cell cannot start."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (9, 9))


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "{}", "-o", "t.memtrace"],
                                     ["run", "-b", "null", "--include-null", "-w", "./{}", "-o",
                                      "r.json"]], ids=["trace-import", "run-w"])
@pytest.mark.parametrize("name", ["hist.csv", "hist.pickle"])
def test_the_importer_names_a_history_by_its_first_bytes(tmp_path, command, name):
    """c10-importer-misnames-kind: a history named hist.csv was "neither a PyTorch snapshot
    pickle nor an RMM log" in `trace import` and `run -w`, where every other reader names it."""
    _a_history(tmp_path, name)
    refused(_memrel(*[a.replace("{}", name) for a in command], cwd=tmp_path), name,
            "an SQLite database", "history --db")
    assert not (tmp_path / "t.memtrace").exists() and not (tmp_path / "r.json").exists()


@needs_memrel
def test_the_importer_names_a_journal_by_its_first_bytes(tmp_path):
    """c10-importer-misnames-kind: a run's journal named jour.pickle was "truncated or malformed
    pickle" in `trace import`."""
    (tmp_path / "jour.pickle").write_text(
        '{"schema":"memrel.journal/1","run":{},"context":{}}\n')
    refused(_memrel("trace", "import", "jour.pickle", "-o", "t.memtrace", cwd=tmp_path),
            "jour.pickle", "a memrel journal", "--resume")


def _cpu_limit_of_two_seconds():
    resource.setrlimit(resource.RLIMIT_CPU, (2, resource.RLIM_INFINITY))


@needs_bench
@pytest.mark.parametrize("command", [["bench", "-b", "null", "--min-time", "0.5", "-o", "out"],
                                     ["ab", "-b", "null", "--rounds", "5", "--looks", "1",
                                      "--min-time", "0.5", "--out", "abo"]], ids=["bench", "ab"])
def test_a_memrel_bench_killed_by_the_cpu_time_limit_names_the_limit(tmp_path, command):
    """c8-bench-cpu-limit-blamed-on-backend, c8-ab-cpu-limit-blamed-on-reference: under `ulimit
    -S -t 2` memrel_bench ended by SIGXCPU, said as "rc 152 (killed by SIGXCPU)" and the
    backend's failure (bench exit 3, ab's reference exit 4), the limit never named, where a run's
    cell and the Python parts name it."""
    r = _memrel(*command, cwd=tmp_path, preexec_fn=_cpu_limit_of_two_seconds)
    assert r.returncode in (3, 4), (r.returncode, r.stderr)
    assert "SIGXCPU under a CPU-time limit of 2 s, ulimit -t: the machine's limit" in r.stderr, \
        r.stderr


@needs_memrel
def test_a_run_the_machine_stops_before_its_first_cell_leaves_no_journal(tmp_path):
    """c8-ulimit-n9-run-leaves-journal: under `ulimit -n 9` `run -w log.csv` imported the log,
    could not start its cell, exit 4 with one line, and left a journal of no cell beside -o."""
    (tmp_path / "log.csv").write_text(RMM_LOG)
    line = refused(_memrel("run", "-b", "null", "--include-null", "-w", "log.csv", "-o", "r.json",
                           cwd=tmp_path, preexec_fn=_one_cell_then_stop), "ulimit -n",
                   exit_code=4)
    assert "journal" not in line
    assert sorted(os.listdir(tmp_path)) == ["log.csv"]



@needs_memrel
def test_a_fresh_run_whose_input_vanishes_keeps_the_journal_it_says_it_kept(tmp_path):
    """The review of this pass's fix: a fresh run stopped by the machine before any cell finished
    said "kept in r.json.journal (put the file back and continue with --resume)" of a journal it
    had removed. Only a cell that cannot start (a descriptor limit) removes it."""
    import shutil
    import time

    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                tmp_path / "w.json")
    # Each call of the host example slowed by 0.3 s: the input goes while the first cell runs.
    p = subprocess.Popen([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w", "./w.json",
                          "-o", "r.json"], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "MEMREL_TEST_HOST_EXAMPLE_DELAY_US": "300000"})
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and \
            not (tmp_path / "r.json.journal").exists():
        time.sleep(0.005)
    (tmp_path / "w.json").unlink()
    _, err = p.communicate(timeout=300)
    assert p.returncode == 4 and "kept in r.json.journal" in err, (p.returncode, err)
    assert (tmp_path / "r.json.journal").exists()
