"""What the forty-second adversarial pass of issue 23 found (docs/inputs.md, "Forty-second pass"),
and what its findings led to: input that takes a matcher down by its depth or length. Each test
fails on the code before its fix."""

import subprocess

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, needs_memrel, python, refused

NESTED = "(" * 20000 + "pair" + ")" * 20000


def _memrel(cwd, *args):
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=180)


@needs_memrel
@pytest.mark.parametrize("command", [
    ["bench", "-b", "host-malloc", "--quick", "-o", "out"],
    ["ab", "-b", "host-malloc", "--quick", "--rounds", "5", "--looks", "1", "--out", "out"]])
def test_a_filter_whose_matching_takes_memrel_bench_down_is_the_filters_fault(tmp_path, command):
    """c8-bench-nested-regex-filter-blamed-on-backend, c8-ab-nested-regex-filter-exit4: a filter
    of 20,000 nested groups made memrel_bench die of SIGSEGV compiling it: bench said the backend
    failed (exit 3), ab that the reference did (exit 4). The filter is refused, exit 2, cut to a
    readable line, nothing written."""
    line = refused(_memrel(tmp_path, *command, "--filter", NESTED),
                   "(40004 characters): matching it against the benchmarks' names died of signal")
    assert len(line) < 400, line
    assert not (tmp_path / "out").exists()


@needs_memrel
def test_a_number_too_long_for_the_matcher_is_refused_not_a_crash(tmp_path):
    """Found beside the pass: a 100,000-digit --alpha overflowed std::regex's recursion in the
    command line's number check, exit 139. Longer than any number memrel reads, refused."""
    alpha = "0." + "1" * 100000
    line = refused(_memrel(tmp_path, "compare", "--alpha", alpha, HOST_RUN, HOST_RUN),
                   "--alpha", "(100002 characters) is longer than any number memrel reads")
    assert len(line) < 300, line


def test_the_python_parts_refuse_the_same_long_number(tmp_path):
    """The Python subcommands read numbers by the same rule (memrel_help.py)."""
    r = python("memrel_history", "changes", "--db", tmp_path / "h.sqlite", "--max-pvalue",
               "0." + "1" * 5000, cwd=tmp_path)
    refused(r, "--max-pvalue", "(5002 characters) is longer than any number memrel reads")
