"""What the forty-fourth adversarial pass of issue 23 found (docs/inputs.md, "Forty-fourth
pass"). Each test fails on the code before its fix."""

import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("option", ["--junit", "--markdown", "--summary", "--json"])
def test_ab_refuses_a_file_output_that_is_its_out_folder(tmp_path, option):
    """c2-ab-file-output-is-out-folder: `ab --out A --junit A` ran every round, then said "A: is a
    folder, not a regular file" naming no option, exit 2, and removed A with every round."""
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "null", "--quick", "--rounds", "5", "--looks",
                        "1", "--filter", "^pair/null/warm/512/", "--out", "A", option, "./A"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=180)
    refused(r, f"{option} ./A: the same path as --out")
    assert r.stdout == ""
    assert not (tmp_path / "A").exists()
