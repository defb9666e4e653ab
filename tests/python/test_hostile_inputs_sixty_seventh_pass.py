"""What the sixty-seventh adversarial pass of issue 23 found arguable and was fixed
(docs/inputs.md, "Sixty-seventh pass"). Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel
from test_hostile_inputs_sixty_sixth_pass import ab_side_setting_is_refused

WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")


@needs_memrel
@pytest.mark.parametrize("kind", ["fifo", "pipe", "device"])
def test_cell_result_fd_takes_a_regular_file_only(tmp_path, kind):
    """c2-cell-result-fd-fifo-hangs: `cell --result-fd 3 3<>fifo` with a result larger than a
    pipe holds blocked for ever, where --out refuses a FIFO at once; --result-fd is an output
    like --out (the runner's is an unnamed regular file)."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "f")
        fd = os.open(tmp_path / "f", os.O_RDWR)
        closing = [fd]
    elif kind == "pipe":
        read_end, fd = os.pipe()
        closing = [read_end, fd]
    else:
        fd = os.open(os.devnull, os.O_WRONLY)
        closing = [fd]
    try:
        r = subprocess.run([MEMREL, "cell", "--backend", "null", "--workload", WORKLOAD,
                            "--result-fd", str(fd)], pass_fds=(fd,), capture_output=True,
                           text=True, cwd=tmp_path, timeout=60)
    finally:
        for each in closing:
            os.close(each)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and f"--result-fd {fd}" in r.stderr, r.stderr
    assert "not a regular file" in r.stderr, r.stderr


@needs_memrel
@pytest.mark.parametrize("setting", ["A\nB=1", "A B=1", "1A=1", "A-B=1", "Ä=1"])
@pytest.mark.parametrize("side", ["candidate", "reference"])
def test_ab_env_takes_variable_names_only(tmp_path, setting, side):
    """c6-ab-env-name-not-a-name: `ab --candidate-env $'A\\nB=1'` (or 'A B=1') was taken, set
    for memrel_bench and recorded under a name no program can look up."""
    ab_side_setting_is_refused(tmp_path, side, setting, "not a variable name")
