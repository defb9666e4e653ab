"""File and workload names as memrel writes them into its JSON, pages and databases
(docs/inputs.md, "Fifth pass"): a Linux file name is bytes, not always UTF-8, and every such name
is written with each bad byte as `\\xff` (platform/path_for_json.hpp); two workload names the
report would give one page are refused by `run` before its first cell, by the report's own
page-name mapping (harness/results/report_page_name.hpp, scripts/memrel_report/prepare.py)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import DATA, ROOT, memrel_binary

MEMREL = memrel_binary()
needs_memrel = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/")

WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
TRACE = os.path.join(ROOT, "benchmarks", "workloads", "trace-rmm-log-convnet-on-rmm-pool.memtrace")
RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
BACKEND = os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")
PAGE_NAMES = os.path.join(DATA, "report_page_names.json")


def memrel(*args, cwd):
    """memrel with arguments that may be bytes (a file name that is not UTF-8)."""
    argv = [os.fsencode(MEMREL)] + [a if isinstance(a, bytes) else os.fsencode(str(a)) for a in args]
    return subprocess.run(argv, capture_output=True, cwd=cwd, timeout=300,
                          env=dict(os.environ, MEMREL_PYTHON=sys.executable))


def copy(source, folder, name):
    target = os.path.join(os.fsencode(folder), name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)


# Each: the files to make (bytes name: source), then the commands, run in order; every one must
# end with exit 0 or exit 2 and one line, never exit 4 (nlohmann::json refused to dump the name:
# "internal error: [json.exception.type_error.316] invalid UTF-8 byte", the fifth pass).
CASES = {
    "t22 run -w": ({b"w\xff.json": WORKLOAD},
                   [["run", "-q", "-b", "null", "-w", b"w\xff.json", "-o", "r.json"],
                    ["compare", "r.json", "r.json", "--json", "v.json"],
                    ["report", "-q", "--out", "rep", "r.json"]]),
    "t64 cell --workload": ({b"w\xff.json": WORKLOAD},
                            [["cell", "--backend", "null", "--workload", b"w\xff.json", "--out",
                              "c.json"]]),
    "t66 advise": ({b"t\xff.memtrace": TRACE},
                   [["advise", b"t\xff.memtrace", "-b", "null", "--out", "o"]]),
    "t67 run -b": ({b"p\xff.json": BACKEND, b"w.json": WORKLOAD},
                   [["run", "-q", "-b", b"p\xff.json", "-w", "w.json", "-o", "r.json"]]),
    "t69 run -w log": ({b"l\xff.csv": RMM_LOG},
                       [["run", "-q", "-b", "null", "-w", b"l\xff.csv", "-o", "r.json"]]),
    "t70 --workloads-dir holding one": ({b"wd/w\xff.json": WORKLOAD},
                                       [["--workloads-dir", "wd", "run", "-q", "-b", "null", "-o",
                                         "r.json"],
                                        ["--workloads-dir", "wd", "list", "--json"]]),
    "t83 run -w trace": ({b"t\xff.memtrace": TRACE},
                         [["run", "-q", "-b", "null", "-w", b"t\xff.memtrace", "-o", "r.json"]]),
    "t86 --workloads-dir named so": ({b"d\xff/w.json": WORKLOAD},
                                     [["--workloads-dir", b"d\xff", "run", "-q", "-b", "null", "-o",
                                       "r.json"]]),
    "t25 merge of a shard": ({b"w.json": WORKLOAD},
                             [["run", "-q", "-b", "null", "-w", "w.json", "--shard", "1/1", "-o",
                               b"s\xff.json"],
                              ["merge", "-o", "m.json", b"s\xff.json"],
                              ["compare", "m.json", "m.json"]]),
    "--backends-dir holding one": ({b"bd\xff/p\xff.json": BACKEND},
                                   [["--backends-dir", b"bd\xff", "list", "--json"]]),
    "report and history of such a results file": (
        {b"w\xff.json": WORKLOAD},
        [["run", "-q", "-b", "null", "-w", b"w\xff.json", "-o", b"r\xff.json"],
         ["history", "--db", b"h\xff.sqlite", "add", b"r\xff.json"],
         ["report", "-q", "--out", b"rep\xff", "--history", b"h\xff.sqlite", b"r\xff.json"]]),
}


@needs_memrel
@pytest.mark.parametrize("case", CASES)
def test_a_file_name_that_is_not_utf8_is_written_escaped_never_an_internal_error(tmp_path, case):
    files, commands = CASES[case]
    for name, source in files.items():
        copy(source, tmp_path, name)
    for args in commands:
        r = memrel(*args, cwd=tmp_path)
        err = r.stderr.decode("utf-8", "backslashreplace")
        assert r.returncode in (0, 2), (args, r.returncode, err)
        assert b"invalid UTF-8" not in r.stderr and b"Traceback" not in r.stderr, err
        if r.returncode == 2:
            assert len(err.strip().splitlines()) == 1, err
    # What went into JSON is the name with its bad byte as the text \xff (Python's
    # "backslashreplace"), as the trace importer writes a snapshot's name.
    for out in ("r.json", "m.json"):
        if (tmp_path / out).exists():
            text = (tmp_path / out).read_text(encoding="utf-8")
            assert "\udcff" not in text and "\ufffd" not in text
    if case == "t22 run -w":
        doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
        assert doc["context"]["options"]["workloads"] == ["w\\xff.json"]
        assert {c["workload_source"] for c in doc["cells"]} == {"w\\xff.json"}


# Errors naming such a name: every byte of the line is UTF-8 and the bad one is the text \\xff.
ERROR_CASES = {
    "m3 unknown workload": ["run", "-q", "-b", "null", "-w", b"ab\xffc", "-o", "r.json"],
    "unknown workload file": ["run", "-q", "-b", "null", "-w", b"ab\xffc.json", "-o", "r.json"],
    "validate of a missing file": ["validate", b"v\xff.json"],
    "unknown backend": ["run", "-q", "-b", b"nul\xffl", "-w", "w.json", "-o", "r.json"],
    "a direction control": ["run", "-q", "-b", "null", "-w", "ab\u202ec", "-o", "r.json"],
}


@needs_memrel
@pytest.mark.parametrize("case", ERROR_CASES)
def test_an_error_naming_a_name_that_is_not_utf8_is_utf8_text(tmp_path, case):
    """The seventh adversarial pass (m3): `run -w $'ab\\xffc'` said "unknown workload 'ab?c'" with
    the raw byte 0xff in it, where every file memrel writes has the text \\xff."""
    copy(WORKLOAD, tmp_path, b"w.json")
    r = memrel(*ERROR_CASES[case], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    line = r.stderr.decode("utf-8")  # raises on a raw byte
    assert len(line.strip().splitlines()) == 1, line
    assert "\\xff" in line or "\\u202E" in line, line
    assert "\u202e" not in line


def python_page_name(name):
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        from memrel_report.prepare import slug
    finally:
        sys.path.pop(0)
    return slug(name)


def test_the_report_page_names_table_is_the_reports_own_mapping():
    """tests/data/report_page_names.json is also checked against the C++ mapping
    (report_page_name_test.cpp): the two definitions agree on every name in it."""
    with open(PAGE_NAMES, encoding="utf-8") as f:
        table = json.load(f)
    assert len(table) >= 10
    for name, page in table.items():
        assert python_page_name(name) == page, name


@needs_memrel
def test_run_refuses_two_workloads_the_report_would_give_one_page(tmp_path):
    """d21: `a/b` and `a_b-c14cddc0` (the first's page name) ran, exit 0, and `report` then refused
    the results ("would share one report page")."""
    with open(WORKLOAD, encoding="utf-8") as f:
        doc = json.load(f)
    for file, name in (("w1.json", "a/b"), ("w2.json", python_page_name("a/b"))):
        doc["name"] = name
        (tmp_path / file).write_text(json.dumps(doc), encoding="utf-8")
    r = memrel("run", "-q", "-b", "null", "-w", "w1.json,w2.json", "-o", "r.json", cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == 2, (r.returncode, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in ("'a/b' (w1.json)", f"'{python_page_name('a/b')}' (w2.json)", "one report page"):
        assert word in lines[0], lines[0]
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.json.journal").exists()


@needs_memrel
@pytest.mark.parametrize("backend", ["null", "long-backend"])
def test_a_long_workload_name_runs_and_reports(tmp_path, backend):
    """d-sanit13: a 300-character workload name ran, exit 0, and `report` then failed ("File name
    too long", exit 4): its page and chart names held it whole. Now cut, with the name's hash."""
    with open(WORKLOAD, encoding="utf-8") as f:
        doc = json.load(f)
    doc["name"] = "x" * 300
    (tmp_path / "w.json").write_text(json.dumps(doc), encoding="utf-8")
    b = "null"
    if backend == "long-backend":  # a long backend name beside it: the timeline joins the two
        with open(BACKEND, encoding="utf-8") as f:
            backend_doc = json.load(f)
        backend_doc["name"] = "b" * 250
        backend_doc["library"] = os.path.join(os.path.dirname(MEMREL),
                                              "libmemrel_pluggable_host_example.so")
        (tmp_path / "b.json").write_text(json.dumps(backend_doc), encoding="utf-8")
        b = "b.json"
    r = memrel("run", "-q", "-b", b, "-w", "w.json", "-o", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    r = memrel("report", "-q", "--out", "rep", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    assert max(len(n) for n in os.listdir(tmp_path / "rep")) <= 255
