"""The importer's fuzzer (tests/fuzz/fuzz_importer.py) for a few seconds in the test command:
every mutated snapshot pickle and RMM log ends in exit 0 or 2 within its own time and memory
limit (1 GiB, 5 s CPU), and leaves no temporary file. Longer runs: run the script by hand."""

import os
import subprocess
import sys

from conftest import ROOT


def test_the_importer_fuzzer_finds_nothing_in_a_few_seconds(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fuzz", "fuzz_importer.py"),
                        "--seconds", "6", "--seed", "23", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    assert " 0 findings" in r.stdout
    assert os.listdir(tmp_path) == []
