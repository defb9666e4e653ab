"""What the fourteenth adversarial pass of issue 23 found and this session fixed before it ended
(docs/inputs.md, "Fourteenth pass"): each test fails on the code before its fix."""

import json
import os
import pickle
import sys
import xml.dom.minidom

import pytest

from conftest import DATA, HOST_RUN
from test_hostile_inputs import RMM_LOG, WORKLOAD, memrel, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("command", [["list"], ["show", "a:b"]])
def test_a_history_db_that_is_a_device_is_refused_and_left_alone(tmp_path, command):
    """c2-history-*-chardev-journal: `history --db X list` with X a character device was SQLite's
    "disk I/O error", exit 4, and left X-journal beside it."""
    pytest.importorskip("sqlite3")
    os.symlink("/dev/null", tmp_path / "X")
    line = refused(memrel("-q", "history", "--db", "X", *command, cwd=tmp_path), "X")
    assert "character device" in line and "not a history database" in line
    assert sorted(os.listdir(tmp_path)) == ["X"]


@needs_memrel
def test_what_a_fake_interpreter_writes_is_not_shown(tmp_path):
    """c8-fakepy-traceback-relayed: an interpreter that answers the probe, prints a traceback of
    its own and exits 2 without running memrel's code: four lines."""
    fake = tmp_path / "fake-python"
    fake.write_text(f'#!/bin/sh\nif [ "$2" = "-c" ]; then exec {sys.executable} "$@"; fi\n'
                    'echo "Traceback (most recent call last):" >&2; echo "ImportError: boom" >&2\n'
                    'exit 2\n')
    fake.chmod(0o755)
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"segments": [], "device_traces": []}))
    r = memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace",
               env={"MEMREL_PYTHON": str(fake)}, cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "without running memrel's code" in lines[0], r.stderr


HOST_BENCH = os.path.join(DATA, "host-bench.json")
NONCHARACTERS = ["\ufffe", "\uffff", "\ufdd0"]


@needs_memrel
@pytest.mark.parametrize("noncharacter", NONCHARACTERS, ids=["U+FFFE", "U+FFFF", "U+FDD0"])
def test_a_name_holding_a_noncharacter_is_refused(tmp_path, noncharacter):
    """c9-junit-noncharacter-ufffe, c9-svg-noncharacter-ufffe: a workload named "a\\uFFFEb" ran,
    exit 0, and `compare --junit` and the report's SVGs were then files no XML reader opens (XML
    may not hold U+FFFE or U+FFFF)."""
    workload = json.loads(open(WORKLOAD, encoding="utf-8").read())
    workload["name"] = f"a{noncharacter}b"
    (tmp_path / "w.json").write_text(json.dumps(workload))
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "./w.json", "-o", "r.json", cwd=tmp_path),
            "w.json", f"\\u{ord(noncharacter):04X}")
    assert sorted(os.listdir(tmp_path)) == ["w.json"]


@needs_memrel
def test_a_trace_named_with_a_noncharacter_is_not_imported(tmp_path):
    """c9-trace-import-name-ufffe-junit: `trace import --name $'a\\uFFFEb'` wrote the trace."""
    refused(memrel("-q", "trace", "import", "--name", "a\ufffeb", "-o", "t.memtrace", RMM_LOG,
                   cwd=tmp_path), "\\uFFFE")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_the_report_shows_a_noncharacter_in_results_escaped(tmp_path):
    """c9-svg-noncharacter-ufffe: results another tool wrote are shown as they are, with what no
    reader may receive raw escaped (as U+202E is); a U+FFFE went into the SVGs raw, and no XML
    reader opened them. A mark's label carries it here: a backend's or a workload's name holding
    one is refused by every reader since the seventeenth pass (as compare and history did)."""
    doc = json.loads(open(HOST_RUN, encoding="utf-8").read())
    for cell in doc["cells"]:
        for mark in cell["marks"]:
            mark["label"] += "\ufffe"
    (tmp_path / "r.json").write_text(json.dumps(doc))
    r = memrel("-q", "report", "--out", "rep", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pages = os.listdir(tmp_path / "rep")
    assert [p for p in pages if p.endswith(".svg")]
    assert any("\\uFFFE" in (tmp_path / "rep" / p).read_text(encoding="utf-8")
               for p in pages if p.endswith(".svg")), "no chart shows the label"
    for page in pages:
        if page.endswith((".svg", ".html", ".md")):
            assert "\ufffe" not in (tmp_path / "rep" / page).read_text(encoding="utf-8"), page
        if page.endswith(".svg"):
            xml.dom.minidom.parse(str(tmp_path / "rep" / page))


@needs_memrel
def test_compare_junit_holds_a_benchmark_named_with_a_noncharacter_escaped(tmp_path):
    """c9-junit-noncharacter-bench-name: Google Benchmark's names are not memrel's to refuse; a
    U+FFFF in one went into the JUnit file raw, which no XML reader then opened."""
    bench = json.loads(open(HOST_BENCH, encoding="utf-8").read())
    for b in bench["benchmarks"]:
        b["name"] += "\uffff"
        if "run_name" in b:
            b["run_name"] = b["name"]
    (tmp_path / "b.json").write_text(json.dumps(bench, ensure_ascii=False), encoding="utf-8")
    r = memrel("-q", "compare", "b.json", "b.json", "--junit", "j.xml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    cases = xml.dom.minidom.parse(str(tmp_path / "j.xml")).getElementsByTagName("testcase")
    names = [case.getAttribute("classname") for case in cases if "/" in case.getAttribute("classname")]
    assert names and all(name.endswith("\\uFFFF") for name in names), names


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "s.pickle", "-o", "t.memtrace"],
                                     ["run", "-b", "host-malloc", "-w", "s.pickle", "-o", "r.json"]])
def test_a_segment_shared_by_reference_is_not_walked_at_every_use(tmp_path, command):
    """c7-snap-shared-segments-work, c7-snap-shared-blocks-run: a 400 KB pickle of one segment
    listed 100,000 times, its 100,000 blocks one dict, was 10^10 steps (still running at 40 s)."""
    block = {"size": 512, "state": "inactive", "address": 0}
    segment = {"device": 0, "total_size": 1024, "address": 0, "blocks": [block] * 100000}
    (tmp_path / "s.pickle").write_bytes(
        pickle.dumps({"segments": [segment] * 100000, "device_traces": [[]]}, protocol=4))
    line = refused(memrel("-q", *command, cwd=tmp_path, timeout=60), "s.pickle", "segments[")
    assert "more blocks than the file has bytes" in line
    assert sorted(os.listdir(tmp_path)) == ["s.pickle"]
