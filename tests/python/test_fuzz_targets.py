"""Every libFuzzer target (tests/fuzz/fuzz_*.cpp) is wired up: built by tests/fuzz/CMakeLists.txt,
run by scripts/test-sanitized, seeded from tests/fuzz/corpus/<target>/ and listed in
docs/testing.md's table. A target that is written but not run fuzzes nothing; the advise grid's
(issue 23) is one of them."""

import glob
import os
import re

from conftest import ROOT

FUZZ = os.path.join(ROOT, "tests", "fuzz")


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def targets():
    return sorted(os.path.basename(p)[len("fuzz_"):-len(".cpp")]
                  for p in glob.glob(os.path.join(FUZZ, "fuzz_*.cpp")))


def test_every_fuzz_target_is_built_run_seeded_and_documented():
    names = targets()
    assert "advise_grid" in names
    cmake = read("tests", "fuzz", "CMakeLists.txt")
    built = set(re.search(r"foreach\(target ([^)]*)\)", cmake)[1].split())
    built |= set(re.findall(r"add_executable\(fuzz_(\w+) ", cmake))
    run = set(re.search(r"targets=\(([^)]*)\)", read("scripts", "test-sanitized"))[1].split())
    documented = set(re.findall(r"^\| `fuzz_(\w+)` \|", read("docs", "testing.md"), re.MULTILINE))
    for name in names:
        assert name in built, f"fuzz_{name} is not built (tests/fuzz/CMakeLists.txt)"
        assert name in run, f"fuzz_{name} is not run (scripts/test-sanitized targets=)"
        assert name in documented, f"fuzz_{name} is not in docs/testing.md's table"
        seeds = os.path.join(FUZZ, "corpus", name)
        assert os.path.isdir(seeds) and os.listdir(seeds), f"fuzz_{name} has no seed corpus"
    assert run == set(names), run ^ set(names)
