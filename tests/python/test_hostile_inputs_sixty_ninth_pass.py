"""What the sixty-ninth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Sixty-ninth pass"). Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel

FILTER = "^pair/null/warm/512/"


def _bench_that_lists_but_writes_nothing(tmp_path):
    """A --bench that answers --help and listings as memrel_bench does, and when run writes an
    empty results file and exits 0 (as a write that failed unseen would)."""
    real = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    if not os.access(real, os.X_OK):
        pytest.skip(f"{real} is not built (no Google Benchmark at configure time)")
    script = tmp_path / "bench.sh"
    script.write_text(f"""#!/bin/bash
case "$*" in *--help*|*list_tests*) exec {real} "$@";; esac
for a; do case $a in --benchmark_out=*) : > "${{a#--benchmark_out=}}";; esac; done
exit 0
""")
    script.chmod(0o755)
    return str(script)


@needs_memrel
def test_bench_says_a_program_that_lists_the_filters_benchmarks_and_runs_none_failed(tmp_path):
    """c8-bench-empty-output-blamed-on-filter: such a --bench was "--filter ... matches no
    benchmark of any backend given", exit 2, blaming an option that matches."""
    bench = _bench_that_lists_but_writes_nothing(tmp_path)
    r = subprocess.run([MEMREL, "-q", "bench", "-b", "null", "--quick", "--filter", FILTER,
                        "-o", "out", "--bench", bench], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 3, r.stderr
    assert "matches no benchmark" not in r.stderr, r.stderr
    assert "lists" in r.stderr and "of the filter" in r.stderr, r.stderr


@needs_memrel
def test_ab_says_a_reference_that_lists_the_filters_benchmarks_and_runs_none_failed(tmp_path):
    """c8-ab-reference-empty-output-blamed-on-filter: as ab's --reference-bench it was
    "--filter ... matches no benchmark of null: nothing to compare", exit 2."""
    bench = _bench_that_lists_but_writes_nothing(tmp_path)
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "null", "--quick", "--filter", FILTER,
                        "--out", "ab", "--reference-bench", bench], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 4, r.stderr
    assert "matches no benchmark" not in r.stderr, r.stderr
    assert "reference" in r.stderr and "round 1" in r.stderr, r.stderr
