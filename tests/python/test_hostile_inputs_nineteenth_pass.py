"""What the nineteenth adversarial pass of issue 23 found (docs/inputs.md, "Nineteenth pass"):
each test fails on the code before its fix."""

import json
import os
import subprocess

import pytest

from conftest import ROOT
from test_hostile_inputs import MEMREL, RMM_LOG, memrel, needs_memrel, refused


@needs_memrel
def test_an_rmm_log_byte_that_is_not_utf8_is_said_on_its_own_line(tmp_path):
    """c7-csv-nonutf8-wrong-line: the bad byte on line 500 was said to be on line 371 (the
    decoder reads ahead in blocks)."""
    with open(RMM_LOG, "rb") as f:
        lines = f.readlines()[:600]
    lines[499] = lines[499].replace(b",", b",\xff", 1)
    (tmp_path / "bad.csv").write_bytes(b"".join(lines))
    refused(memrel("-q", "trace", "import", "-o", "t.memtrace", "bad.csv", cwd=tmp_path),
            "bad.csv: line 500", "not UTF-8")


@needs_memrel
@pytest.mark.parametrize("files", [6, 7])
def test_an_open_files_limit_that_starves_python_is_said_as_the_limit(tmp_path, files):
    """c8-ulimit-n-python-misdiagnosed-*: under `ulimit -n 6` python3 starts, cannot open what it
    needs, exits 0 having printed nothing, and was "not a Python interpreter"."""
    r = subprocess.run(["sh", "-c", f'ulimit -n {files} && exec "$@"', "sh", MEMREL, "-q", "trace",
                        "import", "-o", "t.memtrace", RMM_LOG],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, f"open-files limit of {files}", "ulimit -n", exit_code=4)
    assert "not a Python interpreter" not in r.stderr


@needs_memrel
def test_a_workload_named_as_a_trace_is_told_by_its_content(tmp_path):
    """c10-run-workload-json-named-memtrace: a workload named *.pickle ran (told by content), the
    same file named *.memtrace was refused, "no MEMTRACE magic" (told by its name)."""
    with open(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")) as f:
        (tmp_path / "w.memtrace").write_text(f.read())
    for args in (["validate", "./w.memtrace"],
                 ["run", "-b", "host-malloc", "-w", "./w.memtrace", "-o", "o.json"]):
        r = memrel("-q", *args, cwd=tmp_path)
        assert r.returncode == 0, (args, r.stderr)
    assert json.loads((tmp_path / "o.json").read_text())["cells"][0]["status"] == "ok"


@needs_memrel
@pytest.mark.parametrize("kind", ["symlink", "folder"])
def test_a_report_does_not_replace_what_appears_at_its_out_path_while_it_draws(tmp_path,
                                                                             monkeypatch, kind):
    """c2-report-out-*-appears-midway: a link or a user's folder put at --out while the report
    was drawn was replaced (the mark written through the link). Checked again at the swap."""
    import sys

    from conftest import SCRIPTS

    sys.path.insert(0, SCRIPTS)
    try:
        from memrel_report import folder
        from memrel_report.input_rules import InputError
    finally:
        sys.path.pop(0)
    out = tmp_path / "rep"
    (tmp_path / "target").mkdir()

    def fill(tmp):  # the user's thing appears while the report draws
        if kind == "symlink":
            out.symlink_to(tmp_path / "target")
        else:
            out.mkdir()
            (out / "mine").write_text("mine")

    with pytest.raises(InputError, match="appeared while the report was made"):
        folder.write_atomically(str(out), fill)
    assert os.listdir(tmp_path / "target") == []
    if kind == "folder":
        assert (out / "mine").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["rep", "target"]
