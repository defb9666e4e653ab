"""What the sixty-fifth adversarial pass of issue 23 found arguable and was fixed (docs/inputs.md,
"Sixty-fifth pass"). The test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel


@needs_memrel
@pytest.mark.parametrize("command", [["list"], ["--version"]])
def test_a_full_standard_output_is_said_with_its_cause(tmp_path, command):
    """c8-stdout-full-no-reason: `memrel list > /dev/full` said "cannot write to standard output"
    without the cause the Python parts give."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        r = subprocess.run([MEMREL, *command], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=tmp_path, timeout=60)
    assert r.returncode == 4, r.stderr
    assert r.stderr == "memrel: cannot write to standard output (No space left on device)\n", \
        r.stderr
