"""What the fifty-third adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-third pass"). Each test fails on the code before its fix."""

import os
import subprocess

from test_hostile_inputs import MEMREL, needs_memrel

HERE = os.path.dirname(os.path.abspath(__file__))
H200_RUN = os.path.join(HERE, "..", "data", "h200-run.json")
TRACE = os.path.join(HERE, "..", "..", "benchmarks", "workloads",
                     "trace-transformer-varying-length.memtrace")


def _into_a_reader_that_leaves(args, cwd):
    """memrel ARGS with stdout a pipe whose reader reads one byte and leaves: (exit, stderr)."""
    p = subprocess.Popen([MEMREL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    p.stdout.read(1)
    p.stdout.close()
    err = p.stderr.read().decode()
    return p.wait(timeout=120), err


@needs_memrel
def test_a_reader_that_leaves_early_is_no_failure_for_any_subcommand(tmp_path):
    """c9-closed-stdout-pipe-two-rules: `compare A B | head -1` was exit 4 "cannot write to
    standard output" (or 0, as the reader's timing fell) where `trace show --events | head -1`
    was 0 without a word. One rule: the command's own exit code, no line."""
    rc, err = _into_a_reader_that_leaves(["compare", H200_RUN, H200_RUN], tmp_path)
    assert (rc, err) == (0, ""), (rc, err)
    rc, err = _into_a_reader_that_leaves(["trace", "show", "--events", TRACE], tmp_path)
    assert (rc, err) == (0, ""), (rc, err)


@needs_memrel
def test_a_python_part_killed_by_the_cpu_time_limit_names_the_limit(tmp_path):
    """c8-cpu-limit-python-part-not-named: under `ulimit -t`, `trace import` said only "python3
    ended by SIGKILL" and `report` "lost a process drawing the charts (it died)"."""
    import sys

    (tmp_path / "spin").write_text("while True:\n    pass\n")
    wrapper = tmp_path / "py"  # memrel's code never gets to run: the interpreter spins first
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *memrel_entry*) exec {sys.executable} '
                       f'{tmp_path}/spin ;; esac\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    (tmp_path / "r.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,08:00:00.000001,allocate,0x10,100,0x0\n")
    r = subprocess.run(["bash", "-c", f'ulimit -t 1; exec {MEMREL} trace import r.csv -o t.memtrace'],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_PYTHON=str(wrapper)))
    assert r.returncode == 4, r.stderr
    assert "CPU-time limit of 1 s (ulimit -t" in r.stderr, r.stderr
    assert not (tmp_path / "t.memtrace").exists()
