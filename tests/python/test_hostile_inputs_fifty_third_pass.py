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
