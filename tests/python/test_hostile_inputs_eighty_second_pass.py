"""What the eighty-second adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Eighty-second pass"). Each test fails on the code before its fix."""

import os
import resource
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_bench, needs_memrel, refused
from test_hostile_inputs_seventy_eighth_pass import _memrel

TINY = ('{"schema": "memrel.workload/1", "name": "tiny", "description": "one allocation", '
        '"steps": [{"alloc": "x", "shape": [1000], "dtype": "float32"}, {"mark": "a"}, '
        '{"free": "x"}, {"release": true}, {"mark": "b"}]}')


def _open_files_limit(n):
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    return limit


# The lowest limits memrel itself starts under (its libraries take 3): below it the loader fails.
@needs_memrel
@pytest.mark.parametrize("limit", [4, 5, 6, 7])
def test_run_under_an_open_files_limit_says_the_limit_not_an_internal_error(tmp_path, limit):
    """c9w-nofile-said-internal-error: under `ulimit -n 4` to 7 `run` said "internal error: cannot
    make a pipe" or "internal error: cannot create a temporary file", exit 4, and left a journal
    of no cell beside -o; at 8 it said the limit, as trace import, report and history do."""
    (tmp_path / "w.json").write_text(TINY)
    line = refused(_memrel("run", "-b", "null", "-w", "w.json", "-o", "r.json", cwd=tmp_path,
                           preexec_fn=_open_files_limit(limit)),
                   f"the open-files limit, ulimit -n, is {limit}", exit_code=4)
    assert "internal error" not in line
    assert sorted(os.listdir(tmp_path)) == ["w.json"]


@needs_bench
@pytest.mark.parametrize("limit", [4, 5])
def test_bench_under_an_open_files_limit_says_the_limit_not_an_internal_error(tmp_path, limit):
    """c9w-nofile-said-internal-error: `bench` at `ulimit -n 4` or 5 said "internal error: cannot
    make a pipe", exit 4; at 6 to 8 it said the limit."""
    line = refused(_memrel("bench", "-b", "null", "--quick", "--filter", "^pair/", "-o", "bo",
                           cwd=tmp_path, preexec_fn=_open_files_limit(limit)),
                   f"the open-files limit, ulimit -n, is {limit}", exit_code=4)
    assert "internal error" not in line


@needs_memrel
@pytest.mark.parametrize("command", ["bench", "ab"])
@pytest.mark.parametrize("seconds", ["86400.000000000000000001", "8.6400000000000000001e4"])
def test_the_warm_up_time_is_compared_with_its_bound_as_written(tmp_path, command, seconds):
    """c4-warmup-time-exact-bound: `--bench-arg=--benchmark_min_warmup_time=` followed by
    86400.000000000000000001 read as the double 86400 and memrel_bench started, past the
    documented "at most 86400"."""
    argument = f"--benchmark_min_warmup_time={seconds}"
    r = subprocess.run([MEMREL, "-q", command, "-b", "null", f"--bench-arg={argument}",
                        "--out" if command == "ab" else "-o", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=30)
    refused(r, "--bench-arg", argument, "at most 86400")
    assert not (tmp_path / "o").exists()
