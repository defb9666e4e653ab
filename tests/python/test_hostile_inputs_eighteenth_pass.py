"""What the eighteenth adversarial pass of issue 23 found (docs/inputs.md, "Eighteenth pass"):
each test fails on the code before its fix."""

import os

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import memrel, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("option, value", [("--byte-tolerance", "0x1%"),
                                           ("--byte-tolerance", "+1%"),
                                           ("--latency-min-change", "-0"),
                                           ("--latency-min-change", "-0.0")])
def test_compare_refuses_a_threshold_spelled_with_a_sign_or_in_hex(tmp_path, option, value):
    """c4-compare-bytetol: "0x1%" was 1 % (stod reads hex); c4-compare-latmin: "-0.0" is >= 0 as
    a double, a negative spelling the range does not allow."""
    refused(memrel("-q", "compare", HOST_RUN, HOST_RUN, option, value, cwd=tmp_path), option)
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("value", ["1e-999", "-0.0", "-0"])
def test_history_changes_refuses_a_magnitude_that_reads_as_zero_or_carries_a_sign(tmp_path, value):
    """c4-hist-minmag: --min-magnitude 1e-999 read as 0 (the rule off, not the one asked for) and
    -0.0 passed the range 0 to 10."""
    r = memrel("-q", "history", "--db", "h.db", "add", HOST_RUN, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    refused(memrel("-q", "history", "--db", "h.db", "changes", "--min-magnitude", value,
                   cwd=tmp_path, timeout=300), "--min-magnitude")
