"""What the fifty-first adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-first pass"). Each test fails on the code before its fix."""

import os
import subprocess

from test_hostile_inputs import MEMREL, needs_memrel

REAL_BENCH = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")


@needs_memrel
def test_a_memrel_bench_that_hangs_is_not_blamed_on_an_ordinary_filter(tmp_path):
    """c8-bench-hanging-bench-blamed-on-filter: a --bench that hangs at every call but --help,
    with `--filter '^alloc/'`, was "did not end within 10 s (a regular expression that
    backtracks without end?)", exit 2. It is the backend's failure: timed out, exit 3."""
    hang = tmp_path / "hangbench"
    hang.write_text(f'#!/bin/bash\nif [ "$1" = --help ]; then exec {REAL_BENCH} --help; fi\n'
                    "exec sleep 60\n")
    hang.chmod(0o755)
    r = subprocess.run([MEMREL, "-q", "bench", "-b", "null", "--quick", "--filter", "^alloc/",
                        "--timeout", "5", "--bench", str(hang), "-o", "out"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 3, r.stderr
    assert "backtracks" not in r.stderr and "timeout" in r.stderr, r.stderr
