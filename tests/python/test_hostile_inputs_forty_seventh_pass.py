"""What the forty-seventh adversarial pass of issue 23 found (docs/inputs.md, "Forty-seventh
pass"). Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")
TRACE = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def memrel(tmp_path, *args):
    return subprocess.run([MEMREL, "-q", *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=180)


@needs_memrel
@pytest.mark.parametrize("outputs, said", [
    (["--markdown", "Z/a.md", "--json", "Z"], "--markdown Z/a.md: lies under --json Z"),
    (["--junit", "X/j.xml", "--summary", "X/j.xml/s.md"], "lies under --junit X/j.xml"),
])
def test_compare_refuses_one_output_under_another(tmp_path, outputs, said):
    """c2-compare-json-is-markdown-folder, c2-compare-summary-under-junit: the first output was
    written, then the second failed ("Z: is a folder"), one output of a refused command left."""
    refused(memrel(tmp_path, "compare", HOST_RUN, HOST_RUN, *outputs), said)
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_ab_refuses_one_output_under_another_before_any_round(tmp_path):
    """c2-ab-json-is-markdown-folder, c2-ab-summary-under-junit: every round ran first."""
    refused(memrel(tmp_path, "ab", "-b", "null", "--quick", "--out", "ab", "--markdown",
                   "AD/m.md", "--json", "AD"), "lies under --json AD")
    refused(memrel(tmp_path, "ab", "-b", "null", "--quick", "--out", "J/j.xml/ab", "--junit",
                   "J/j.xml"), "--out J/j.xml/ab: lies under --junit J/j.xml")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("out, json_path, said", [
    ("AV/sub", "AV", "--out AV/sub: lies under --json AV"),
    ("AW/x.json/o", "AW/x.json", "lies under --json AW/x.json"),
    ("Q", "Q/results.json/x.json", "lies under results.json"),
])
def test_advise_refuses_json_on_the_way_of_its_folder(tmp_path, out, json_path, said):
    """c2-advise-json-is-out-parent, c2-advise-out-under-json, c2-advise-json-under-own-file: the
    sweep ran and filled --out, then --json could not be written."""
    refused(memrel(tmp_path, "advise", TRACE, "-b", "host-malloc", "--out", out, "--json",
                   json_path), said)
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_bench_refuses_a_log_on_the_way_of_its_results(tmp_path):
    """c2-bench-logs-file-is-out-folder: `-o F/bench-null.log --logs F` wrote the results into
    F/bench-null.log/, then could not write the log there."""
    refused(memrel(tmp_path, "bench", "-b", "null", "--quick", "-o", "F/bench-null.log", "--logs",
                   "F"), "lie one on the other's way")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_no_folder_is_made_under_a_journals_name(tmp_path):
    """c2-markdown-folder-at-run-journal: `--markdown R/r.json.journal/m.md` made a folder where
    `run -o R/r.json` keeps its journal, and that run was then refused."""
    refused(memrel(tmp_path, "compare", HOST_RUN, HOST_RUN, "--markdown", "R/r.json.journal/m.md"),
            "would make the folder R/r.json.journal")
    refused(memrel(tmp_path, "trace", "import", LOG, "-o", "T.journal/t.memtrace"),
            "would make the folder T.journal")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("args", [["trace", "import", LOG, "-o", "t.memtrace/"],
                                  ["history", "--db", "h.sqlite", "changes", "--markdown", "m.md/"]])
def test_the_python_writers_refuse_a_trailing_slash(tmp_path, args):
    """c2-trace-import-out-trailing-slash, c2-changes-markdown-trailing-slash: the C++ writers say
    a trailing "/" names a folder at the start; trace import read the whole source first."""
    if args[0] == "history":
        assert memrel(tmp_path, "history", "--db", "h.sqlite", "add", HOST_RUN).returncode == 0
    refused(memrel(tmp_path, *args), "names a folder (it ends in /)")
    assert sorted(os.listdir(tmp_path)) in ([], ["h.sqlite"])


@needs_memrel
def test_an_rmm_number_refused_for_its_length_is_said_so(tmp_path):
    """c7-rmm-leading-zeros-wording: 0x0000000000000000001000 and 00000000000000000000004096 were
    "not hexadecimal below 2^64" and "not a whole number in ASCII digits", which they are."""
    def log(pointer, size):
        (tmp_path / "l.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                        f"1,08:00:00.000001,allocate,{pointer},{size},0x1\n"
                                        f"1,08:00:00.000002,free,{pointer},{size},0x1\n")
        return memrel(tmp_path, "trace", "import", "l.csv", "-o", "t.memtrace")
    refused(log("0x0000000000000000001000", 4096), "hexadecimal of at most 16 digits")
    refused(log("0x1000", "00000000000000000000004096"), "at most 20 ASCII digits")


@needs_memrel
def test_a_trace_count_past_its_records_is_said_truncated(tmp_path):
    """c7-memtrace-events-overflow-wording: counts.events = n + 2^60 made 16 x events wrap past
    2^64: "trailing bytes: 215672 bytes, ... needs 215672"."""
    import json
    import struct
    data = open(TRACE, "rb").read()
    size = struct.unpack("<I", data[8:12])[0]
    header = json.loads(data[16:16 + size])
    header["counts"]["events"] += 2 ** 60
    text = json.dumps(header).encode()
    text += b" " * ((-(16 + len(text))) % 8)
    (tmp_path / "t.memtrace").write_bytes(data[:8] + struct.pack("<I", len(text)) + data[12:16]
                                          + text + data[16 + size:])
    refused(memrel(tmp_path, "validate", "t.memtrace"), "truncated",
            "needs more than the file holds")
