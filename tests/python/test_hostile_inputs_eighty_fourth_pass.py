"""What the eighty-fourth adversarial pass of issue 23 remarked on and was mended (docs/inputs.md,
"Eighty-fourth pass"). Each test fails on the code before its mend."""

import os
import shutil

import pytest

from test_hostile_inputs import ROOT, needs_memrel, refused
from test_hostile_inputs_seventy_eighth_pass import _memrel


@needs_memrel
@pytest.mark.parametrize("second", ["./a.json", "hard-link.json"])
def test_one_workload_file_under_two_spellings_is_named_twice(tmp_path, second):
    """w3: `-w ./a.json -w a.json` said "name 'single-large' is both ./a.json and a.json: results
    would hold two cells of one name; rename one", of one file given twice."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"),
                tmp_path / "a.json")
    os.link(tmp_path / "a.json", tmp_path / "hard-link.json")
    line = refused(_memrel("run", "-b", "null", "--include-null", "-w", "a.json", "-w", second,
                           "-o", "r.json", cwd=tmp_path), "is named twice", "a.json", second)
    assert "rename one" not in line
    assert not (tmp_path / "r.json").exists()
