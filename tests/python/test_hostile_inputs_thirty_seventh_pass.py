"""What the thirty-sixth adversarial pass of issue 23 left open and the thirty-seventh found
(docs/inputs.md, "Thirty-sixth pass" and "Thirty-seventh pass"): each test fails on the code
before its fix."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, needs_memrel, refused
from test_hostile_inputs_thirty_fourth_pass import _args, _snapshot

TRACE_SOURCE = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def _interpreter(folder):
    """A MEMREL_PYTHON of the user's own: a script that runs this Python."""
    py = folder / "py"
    py.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    py.chmod(0o755)
    return py


# Each command's output named as the interpreter it runs its Python part with.
_OVER_THE_INTERPRETER = {
    "trace import -o": ["trace", "import", TRACE_SOURCE, "-o", "py"],
    "advise --json": ["advise", TRACE_SOURCE, "-b", "null", "--out", "adv", "--json", "py"],
    "compare --markdown": ["compare", HOST_RUN, HOST_RUN, "--markdown", "py"],
    "report --out": ["report", "--out", "rep", HOST_RUN],
}


@needs_memrel
@pytest.mark.parametrize("command", sorted(_OVER_THE_INTERPRETER))
def test_no_output_takes_the_place_of_the_interpreter_memrel_runs(tmp_path, command):
    """c1-*-over-memrel-python: with MEMREL_PYTHON=./py, `trace import -o py`, `advise --json
    py` and `history changes --markdown py` wrote over the interpreter they ran (exit 0, or 4
    when the next start found it gone), and `report --out rep` removed rep/py with the old
    report. The interpreter is a file memrel runs, as its own binary is."""
    if command == "report --out":  # an earlier report, the interpreter kept in it
        subprocess.run([MEMREL, "-q", "report", "--out", "rep", HOST_RUN], check=True,
                       capture_output=True, cwd=tmp_path, timeout=120)
    py = _interpreter(tmp_path / "rep" if command == "report --out" else tmp_path)
    before = py.read_bytes()
    env = dict(os.environ, MEMREL_PYTHON=str(py))
    r = subprocess.run([MEMREL, *_OVER_THE_INTERPRETER[command]], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=120)
    line = refused(r, "py")
    assert "memrel runs" in line or "memrel's own" in line, line
    assert py.read_bytes() == before


@needs_memrel
def test_history_changes_writes_no_markdown_over_the_interpreter(tmp_path):
    """c1-history-changes-md-over-memrel-python: the Markdown was written over the interpreter
    that MEMREL_HISTORY_PYTHON names, exit 0."""
    otava = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "memrel", "otava", "bin", "python")
    if not os.access(otava, os.X_OK):
        pytest.skip("Otava is not installed (scripts/install-deps): changes stops before writing")
    subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    py = tmp_path / "py"
    py.write_text(f"#!/bin/sh\nexec {otava} \"$@\"\n")
    py.chmod(0o755)
    before = py.read_bytes()
    env = dict(os.environ, MEMREL_HISTORY_PYTHON=str(py))
    r = subprocess.run([MEMREL, "history", "--db", "h.sqlite", "changes", "--markdown", "py"],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    refused(r, "--markdown", "py", "a file memrel runs")
    assert py.read_bytes() == before


def _chattr(flag, path):
    """chattr FLAG PATH, or skip: the attributes need root (CAP_LINUX_IMMUTABLE) and a file
    system that keeps them (ext4, xfs, btrfs; not tmpfs or overlayfs everywhere)."""
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here")
    r = subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"chattr {flag} is refused here ({r.stderr.strip()})")


@pytest.fixture
def attributes_cleared():
    """The paths given chattr attributes, cleared again whatever the test did, so that pytest
    can remove its folder."""
    paths = []
    yield paths
    for path in paths:
        subprocess.run(["chattr", "-i", "-a", str(path)], capture_output=True)


# Every writer of tests/python/test_hostile_inputs_thirty_fourth_pass.py's table, and those that
# found the attributes only at the rename: merge, advise --json.
_WRITERS = ["run -o", "cell --out", "compare --markdown", "compare --json", "compare --junit",
            "trace import -o", "report --out", "history --db"]


@needs_memrel
@pytest.mark.parametrize("writer", _WRITERS)
def test_a_folder_that_takes_no_rename_is_refused_before_any_work(tmp_path, writer,
                                                                  attributes_cleared):
    """c2-append-only-folder-leftovers, c9-append-only-python-permissionerror: in an append-only
    folder (chattr +a: files are made, never renamed or removed), `compare --markdown` and `run
    -o` did the work and exited 4 "internal error: cannot rename into place", leaving their
    temporary and probe files for good; the trace importer said "internal error:
    PermissionError". Refused before any work, exit 2, nothing made there."""
    work = tmp_path / "work"
    (work / "ap").mkdir(parents=True)
    attributes_cleared.append(work / "ap")
    _chattr("+a", work / "ap")
    r = subprocess.run([MEMREL, *_args(tmp_path, writer, "ap")], capture_output=True, text=True,
                       cwd=work, timeout=120)
    refused(r, "ap", "append-only")
    assert os.listdir(work / "ap") == []


_IMMUTABLE_OUTPUTS = {
    "merge -o": (["merge", "-o", "out.json", HOST_RUN], "out.json"),
    "advise --json": (["advise", TRACE_SOURCE, "-b", "null", "--out", "adv", "--json",
                       "out.json"], "out.json"),
    "compare --summary": (["compare", HOST_RUN, HOST_RUN, "--summary", "out.md"], "out.md"),
    "run -o": (["run", "-q", "-b", "null", "--include-null", "-w", "temp-then-delete", "-o",
                "out.json"], "out.json"),
    "trace import -o": (["trace", "import", TRACE_SOURCE, "-o", "out.memtrace"], "out.memtrace"),
    "cell --out": (["cell", "--backend", "null", "--workload",
                    os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                    "--out", "out.json"], "out.json"),
}


@needs_memrel
@pytest.mark.parametrize("writer", sorted(_IMMUTABLE_OUTPUTS))
def test_an_output_that_cannot_be_written_over_is_refused_before_any_work(tmp_path, writer,
                                                                          attributes_cleared):
    """c2-unwritable-file-exit4-compare, c2-cell-unwritable-out-exit4-not-5: an output file
    marked immutable (chattr +i) was refused up front by `run -o`, but compare's outputs, merge
    and advise --json did the work and exited 4 "internal error: cannot rename into place" (and
    `cell --out` 4, where its help says 2 or 5). One rule: refused before any work, exit 2."""
    args, output = _IMMUTABLE_OUTPUTS[writer]
    (tmp_path / output).write_text("mine")
    attributes_cleared.append(tmp_path / output)
    _chattr("+i", tmp_path / output)
    r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, output, "immutable")
    assert (tmp_path / output).read_text() == "mine"
    assert not (tmp_path / "adv").exists()


@needs_memrel
def test_an_advise_grid_naming_two_backends_of_one_name_is_refused(tmp_path):
    """c6-advise-grid-two-files-one-name: a grid naming the backends folder's
    pluggable-host-example and the user's own backend file of that name swept only the first,
    exit 0, the user's configuration dropped without a word (`-b` refuses the same pair)."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    if not os.path.exists(library):
        pytest.skip("the pluggable example library is not built here")
    shutil.copy(library, tmp_path / "mylib.so")
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        backend = json.load(f)
    backend["library"] = str(tmp_path / "mylib.so")
    backend["description"] = "the user's own variant"
    (tmp_path / "p.json").write_text(json.dumps(backend))
    (tmp_path / "g.json").write_text(json.dumps({
        "schema": "memrel.advise-grid/1", "description": "d",
        "configurations": ["pluggable-host-example", str(tmp_path / "p.json")]}))
    r = subprocess.run([MEMREL, "advise", TRACE_SOURCE, "-b", "null", "--grid", "g.json",
                        "--out", "adv"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "pluggable-host-example", "p.json", "rename one")
    assert not (tmp_path / "adv").exists()


@needs_memrel
def test_a_report_folder_holding_a_file_that_cannot_be_removed_is_refused(tmp_path,
                                                                        attributes_cleared):
    """c9-report-old-folder-left-behind (arguable in the thirty-sixth pass): `report --out rep`
    over an earlier report holding an immutable file wrote the new report and left the old one
    beside it as rep.old-PID for good, exit 0, unsaid. Refused before any work."""
    subprocess.run([MEMREL, "-q", "report", "--out", "rep", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    attributes_cleared.append(tmp_path / "rep" / "index.html")
    _chattr("+i", tmp_path / "rep" / "index.html")
    r = subprocess.run([MEMREL, "report", "--out", "rep", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, "rep/index.html", "immutable", "replaced whole")
    assert sorted(os.listdir(tmp_path)) == ["rep"]


@needs_memrel
def test_two_workloads_of_one_name_in_the_workloads_folder_are_not_blamed_on_w(tmp_path):
    """c6-workloads-dir-duplicate-blames-w (arguable in the thirty-sixth pass): a workloads folder
    holding a workload and a trace of one name was refused (rightly) as "-w: ...", an option never
    given. Said as the workloads run by default, both files named."""
    folder = tmp_path / "wd"
    folder.mkdir()
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"), folder)
    subprocess.run([MEMREL, "-q", "trace", "import", TRACE_SOURCE, "-o", "wd/other.memtrace",
                    "--name", "single-large"], check=True, capture_output=True, cwd=tmp_path,
                   timeout=120)
    r = subprocess.run([MEMREL, "--workloads-dir", "wd", "run", "-b", "null", "-o", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    line = refused(r, "no -w", "wd/other.memtrace", "wd/single-large.json")
    assert "-w:" not in line


@needs_memrel
def test_bench_refuses_a_backends_folder_file_that_is_no_backend(tmp_path):
    """c6-bench-backends-dir-invalid-file-skipped: a malformed file in --backends-dir, taken by
    default: run refused it (exit 2, one line); bench left it out and exited 0 without a word."""
    (tmp_path / "bd").mkdir()
    (tmp_path / "bd" / "broken.json").write_text("{")
    r = subprocess.run([MEMREL, "--backends-dir", "bd", "bench", "--quick", "--filter", "^pair/",
                        "-o", "out"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "bd/broken.json", "malformed JSON")
    assert not (tmp_path / "out").exists()


@needs_memrel
@pytest.mark.parametrize("command", ["trace import -o", "report --out"])
def test_a_python_writer_refuses_an_output_through_a_descriptor_link(tmp_path, command):
    """c2-python-writers-follow-proc-fd-link: /proc/self/fd/N is a symbolic link, which every C++
    writer refuses; memrel passed it to its Python parts as the file behind the descriptor, and
    `trace import -o` and `report --out` wrote through it, exit 0."""
    behind = tmp_path / ("t.txt" if command == "trace import -o" else "rd")
    if command == "trace import -o":
        behind.write_text("keep")
        fd = os.open(behind, os.O_WRONLY | os.O_APPEND)
        args = ["trace", "import", TRACE_SOURCE, "-o", f"/proc/self/fd/{fd}"]
    else:
        behind.mkdir()
        fd = os.open(behind, os.O_RDONLY | os.O_DIRECTORY)
        args = ["report", "--out", f"/proc/self/fd/{fd}", HOST_RUN]
    try:
        r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120, pass_fds=(fd,))
    finally:
        os.close(fd)
    refused(r, f"/proc/self/fd/{fd}", "symbolic link")
    if command == "trace import -o":
        assert behind.read_text() == "keep"
    else:
        assert os.listdir(behind) == []


def test_the_nightly_runs_every_backend_the_h200_baseline_holds():
    """c10-h200-baseline-null-cells-fail-every-night: the H200 baseline (recorded by
    scripts/gpu-check, --include-null) holds the null backend's cells, and scripts/nightly ran
    the default set, all but null: every H200 night failed with 15 cells "missing" and no
    regression. The nightly's run takes null too; its other backends are the default set."""
    with open(os.path.join(ROOT, "results", "baselines", "h200", "suite.json")) as f:
        held = {c["backend"] for c in json.load(f)["cells"]}
    with open(os.path.join(ROOT, "scripts", "nightly")) as f:
        runs = [line for line in f if line.startswith('"$bin/memrel" run ')]
    assert len(runs) == 1, runs
    assert " -b " not in runs[0]  # the default set: every backend memrel has
    if "null" in held:
        assert "--include-null" in runs[0], runs[0]


@needs_memrel
def test_compare_refuses_a_quick_file_against_a_default_one(tmp_path):
    """c10-gate-compares-quick-baseline-with-default-night: two bench files of one backend, one
    measured with --quick (4 sizes, a short churn), the other without, were paired without a
    word: the churn benchmarks keep their names and run another churn, and their bytes were
    byte regressions, exit 1, with no allocator change. Refused, naming both measurements."""
    with open(os.path.join(ROOT, "tests", "data", "host-bench.json")) as f:
        bench = json.load(f)
    name = "bench-" + bench["context"]["memrel_backend"] + ".json"
    for side, measured in (("a", "quick"), ("b", "default")):
        (tmp_path / side).mkdir()
        bench["context"]["memrel_measurement"] = measured
        (tmp_path / side / name).write_text(json.dumps(bench))
    r = subprocess.run([MEMREL, "compare", "a", "b"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "memrel_measurement", '"quick"', '"default"')
    same = subprocess.run([MEMREL, "compare", "b", "b"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert same.returncode == 0, same.stderr


def test_scripts_report_keeps_out_of_memrels_own_data(tmp_path):
    """c1-scripts-report-into-own-data: scripts/report, "the same as `memrel report`", ran the
    report without what memrel hands it (MEMREL_OWN_DATA_DIR) and wrote a report folder into the
    tree's benchmarks/workloads/, which `memrel report` refuses as memrel's own data."""
    copy = tmp_path / "copy"
    shutil.copytree(os.path.join(ROOT, "scripts"), copy / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "benchmarks", "workloads"),
                    copy / "benchmarks" / "workloads")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMREL_")}
    r = subprocess.run(["sh", str(copy / "scripts" / "report"), "--out",
                        str(copy / "benchmarks" / "workloads" / "rep"), HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    refused(r, "memrel's own code or data")
    assert not (copy / "benchmarks" / "workloads" / "rep").exists()


def _bench_with(tmp_path, name, change):
    """tests/data/host-bench.json with max_bytes_used made sane on its first series, then CHANGE
    applied to that series' repetitions; written as NAME."""
    with open(os.path.join(ROOT, "tests", "data", "host-bench.json")) as f:
        bench = json.load(f)
    first = bench["benchmarks"][0]["run_name"]
    series = [b for b in bench["benchmarks"]
              if b.get("run_name") == first and b.get("run_type", "iteration") == "iteration"]
    for b in series:
        b["max_bytes_used"] = 4096
    change(series)
    (tmp_path / name).write_text(json.dumps(bench))
    return name


@needs_memrel
@pytest.mark.parametrize("message,verdict", [("", 1), ("oops", 1)])
def test_an_error_message_marks_its_series_not_run_even_empty(tmp_path, message, verdict):
    """c4-empty-error-message-switches-skip-rule-off: rule 2 of docs/benchmark-json.md, an entry
    with an error_message string did not run; compare read an empty one as running and took the
    other four repetitions, exit 0, where the report marked the series skipped."""
    base = _bench_with(tmp_path, "a.json", lambda s: None)
    cur = _bench_with(tmp_path, "b.json",
                      lambda s: s[2].update(error_occurred=False, error_message=message))
    r = subprocess.run([MEMREL, "compare", base, cur], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == verdict, (r.returncode, r.stderr)
    assert (message or "no reason given") in r.stdout


@needs_memrel
def test_a_skip_message_alone_is_no_skip(tmp_path):
    """c4-skip-message-alone-gate-says-regression: a lone "skip_message" on one repetition made
    compare call a series that ran skipped, REGRESSION, exit 1; the report counted it as run."""
    base = _bench_with(tmp_path, "a.json", lambda s: None)
    cur = _bench_with(tmp_path, "b.json", lambda s: s[2].update(skip_message="x"))
    r = subprocess.run([MEMREL, "compare", "--no-latency-gate", base, cur], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stdout[-800:], r.stderr)


@needs_memrel
@pytest.mark.parametrize("unit", [None, 1000, True])
@pytest.mark.parametrize("command", ["compare", "history"])
def test_a_time_unit_that_is_not_a_string_is_refused(tmp_path, unit, command):
    """c4-compare-accepts-time-unit-not-a-string: a time_unit of null, 1000 or true was read as
    ns by compare and history add, exit 0; the report refused it."""
    bad = _bench_with(tmp_path, "b.json", lambda s: s[0].update(time_unit=unit))
    args = (["compare", bad, bad] if command == "compare"
            else ["history", "--db", "h.sqlite", "add", bad])
    r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "time_unit", json.dumps(unit))


@needs_memrel
def test_the_report_checks_the_max_bytes_used_it_takes(tmp_path):
    """c4-report-takes-impossible-max-bytes-used-behind-non-number: with the last repetition's
    max_bytes_used "x", the report took 2^60 from the one before, unchecked, exit 0; compare
    refused it."""
    def change(series):
        for b in series:
            b["max_bytes_used"] = 1 << 60
        series[-1]["max_bytes_used"] = "x"
    bad = _bench_with(tmp_path, "b.json", change)
    r = subprocess.run([MEMREL, "report", "--out", "rep", "--bench", bad, HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "max_bytes_used")
    assert not (tmp_path / "rep").exists()


def _edited(tmp_path, source, name, change):
    with open(os.path.join(ROOT, "tests", "data", source)) as f:
        doc = json.load(f)
    change(doc)
    (tmp_path / name).write_text(json.dumps(doc))
    return name


def _first_release_cell(doc):
    return next(c for c in doc["cells"] if c["metrics"]["releases"])


_REPORT_REFUSES = {
    "release_effectiveness 5": ("host-run.json", lambda d: _first_release_cell(d)["metrics"]
                                .update(release_effectiveness=5.0), "release_effectiveness"),
    "a release's effectiveness 9": ("host-run.json", lambda d: _first_release_cell(d)["metrics"]
                                    ["releases"][0].update(effectiveness=9.0), "effectiveness"),
    "replay_ns -1": ("host-trace-run.json", lambda d: d["cells"][0]["trace"]
                     .update(replay_ns=-1), "replay_ns"),
    "sample_every x": ("host-trace-run.json", lambda d: d["cells"][0]["trace"]
                       .update(sample_every="x"), "sample_every"),
    "source_file null": ("host-trace-run.json", lambda d: d["cells"][0]["trace"]
                         .update(source_file=None), "source_file"),
}


@needs_memrel
@pytest.mark.parametrize("case", sorted(_REPORT_REFUSES))
def test_the_report_refuses_the_results_compare_refuses(tmp_path, case):
    """c4-report-accepts-impossible-release-effectiveness, c4-report-accepts-trace-object-compare-
    refuses: an effectiveness that is not returned / releasable, a negative replay_ns, a
    sample_every "x" or a source_file null: compare refused each, the report drew it, exit 0."""
    source, change, word = _REPORT_REFUSES[case]
    bad = _edited(tmp_path, source, "r.json", change)
    compared = subprocess.run([MEMREL, "compare", bad, bad], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
    refused(compared, word)
    r = subprocess.run([MEMREL, "report", "--out", "rep", bad], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, word)
    assert not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("alpha", [-1, None, 2])
def test_the_report_refuses_a_verdicts_file_whose_rules_break_the_schema(tmp_path, alpha):
    """c4-verdict-rules-out-of-schema-accepted: `report --baseline-verdict` took rules with alpha
    -1, or none, exit 0; docs/report.md says a file its schema refuses is exit 2."""
    subprocess.run([MEMREL, "compare", HOST_RUN, HOST_RUN, "--json", "v.json"], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    doc = json.loads((tmp_path / "v.json").read_text())
    if alpha is None:
        del doc["rules"]["alpha"]
    else:
        doc["rules"]["alpha"] = alpha
    (tmp_path / "v.json").write_text(json.dumps(doc))
    r = subprocess.run([MEMREL, "report", "--out", "rep", "--baseline-verdict", "v.json",
                        HOST_RUN], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "v.json", "alpha")
    assert not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("key,value", [("format", 5), ("file", None)])
def test_a_trace_header_source_that_is_not_a_string_is_bad_input(tmp_path, key, value):
    """c7-trace-header-source-not-string-internal-error: a .memtrace whose header's source.format
    or source.file was not a string was "internal error: [json.exception.type_error.302]", exit
    4, for validate, run -w, trace show and list."""
    import struct
    header = {"schema": "memrel.trace/1", "name": "t",
              "source": {"format": "rmm-log", "file": "l.csv", "bytes": 117,
                         "sha256": "0" * 64, key: value},
              "provenance": {"devices_in_source": 1, "source_entries": 2, "streams": ["0x0"],
                             "threads": [1], "time_span_us": 1, "allocator_settings": None,
                             "imported_by": "memrel trace import",
                             "imported_at": "2026-12-05T00:00:00Z"},
              "device": 0, "record_bytes": 16,
              "counts": {"events": 2, "allocs": 1, "frees": 1, "blocks": 1,
                         "allocated_at_start": 0, "freed_at_end": 0, "marks": 0},
              "peak_requested_bytes": 16, "peak_requested_event": 1, "marks": [],
              "recorded_reserved": None}
    body = json.dumps(header).encode()
    body += b" " * ((-(16 + len(body))) % 8)
    records = struct.pack("<B3xIQ", 1, 0, 16) + struct.pack("<B3xIQ", 2, 0, 16)
    (tmp_path / "t.memtrace").write_bytes(b"MEMTRACE" + struct.pack("<II", len(body), 16) +
                                          body + records)
    for args in (["validate", "t.memtrace"], ["trace", "show", "t.memtrace"]):
        r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        refused(r, f"header.source.{key}", "must be a string")


@needs_memrel
def test_a_change_from_zero_has_no_percentage_and_the_json_is_json(tmp_path):
    """c4-history-change-from-zero-percent, c4-history-changes-json-infinity (the thirty-eighth
    pass): a series stepping from 0 to 4096 was a change of "+0.0%" (change_percent 0.0 in
    --json, which the report reads), and one from a mean near 0 wrote `Infinity`, no JSON. A
    change from 0 has no percentage: null, "from 0"."""
    otava = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "memrel", "otava", "bin", "python")
    if not os.access(otava, os.X_OK):
        pytest.skip("Otava is not installed (scripts/install-deps)")
    with open(os.path.join(ROOT, "tests", "data", "compare", "separate-runs", "run-1.json")) as f:
        night = json.load(f)
    for i, value in enumerate([0.0] * 6 + [4096.0] * 6):
        night["context"]["date"] = f"2026-01-{i + 1:02d}T00:00:00+00:00"
        night["context"]["memrel_started"] = f"2026-01-{i + 1:02d}T00:00:00Z"
        for b in night["benchmarks"]:
            if "overhead" in b:
                b["overhead"] = value
        (tmp_path / f"b{i:02d}.json").write_text(json.dumps(night))
        subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", f"b{i:02d}.json"],
                       check=True, capture_output=True, cwd=tmp_path, timeout=120)
    metric = "pair/host-malloc-retain/warm/512/manual_time:overhead"
    r = subprocess.run([MEMREL, "history", "--db", "h.sqlite", "changes", "--metric", metric,
                        "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    points = json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"{c} is no JSON"))
    assert [(p["before"], p["after"], p["change_percent"]) for p in points] == [(0, 4096, None)]
    r = subprocess.run([MEMREL, "history", "--db", "h.sqlite", "changes", "--metric", metric],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "from 0" in r.stdout and "+0.0%" not in r.stdout, r.stdout


def _import_snapshot(tmp_path, snapshot):
    """`memrel trace import s.pickle -o s.memtrace` of SNAPSHOT, pickled in tmp_path."""
    import pickle
    with open(tmp_path / "s.pickle", "wb") as f:
        pickle.dump(snapshot, f)
    return subprocess.run([MEMREL, "trace", "import", "s.pickle", "-o", "s.memtrace"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


def _block(address, size=512):
    return {"address": address, "size": size, "requested_size": 10, "state": "active_allocated"}


_SEGMENTS = {
    "one block twice": ([{"device": 0, "address": 4096, "total_size": 1 << 20,
                          "blocks": [_block(4096), _block(4096)]}], "overlaps"),
    "two segments at one address": ([{"device": 0, "address": 4096, "total_size": 1 << 20,
                                      "blocks": [_block(4096)]},
                                     {"device": 0, "address": 4096, "total_size": 1 << 20,
                                      "blocks": [_block(8192)]}], "overlaps"),
    "a block outside its segment": ([{"device": 0, "address": 4096, "total_size": 1024,
                                      "blocks": [_block(1 << 30)]}], "outside its segment"),
    "a block of no state torch has": ([{"device": 0, "address": 4096, "total_size": 1 << 20,
                                        "blocks": [dict(_block(4096), state="weird")]}],
                                      "none of active_allocated"),
}


@needs_memrel
@pytest.mark.parametrize("case", sorted(_SEGMENTS))
def test_a_snapshot_holding_a_byte_twice_is_refused(tmp_path, case):
    """c7-snapshot-segments-duplicate-block (the thirty-eighth pass): a snapshot whose segments
    listed one live block twice was imported as two blocks held at the start, its peak doubled,
    exit 0; two segments at one address and a block outside its segment were taken too."""
    segments, word = _SEGMENTS[case]
    r = _import_snapshot(tmp_path, {"segments": segments, "device_traces": [[]]})
    refused(r, "s.pickle", "segments[", word)
    assert not (tmp_path / "s.memtrace").exists()


@needs_memrel
def test_a_history_where_no_file_can_be_made_is_said_as_its_folder(tmp_path):
    """c2-history-db-unwritable-place (arguable in the thirty-eighth pass): `history --db
    /proc/h.sqlite add` said SQLite's "unable to open database file", naming neither --db nor
    why, where every other writer says its folder takes no file."""
    r = subprocess.run([MEMREL, "history", "--db", "/proc/h.sqlite", "add", HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "--db /proc/h.sqlite", "cannot write in its folder")


@needs_memrel
@pytest.mark.parametrize("size,words", [("abc", "must be an integer"), (-4, "out of range"),
                                        (2 ** 80, "out of range"),
                                        (999, "allocated with size 16")])
@pytest.mark.parametrize("action", ["free_completed", "free_requested"])
def test_a_snapshot_free_is_of_its_blocks_size(tmp_path, size, words, action):
    """c7-snapshot-free-size-unchecked (the thirty-ninth pass): the free of a block the trace
    allocated was taken whatever its size ('abc', -4, 2**80, another size), exit 0, where the
    free of a block held at the start is checked and an RMM log's free of another size is
    refused. PyTorch records both with the size asked for (orig_size, requested_size)."""
    entries = [{"action": "alloc", "addr": 4096, "size": 16, "stream": 0},
               {"action": action, "addr": 4096, "size": size, "stream": 0}]
    r = _import_snapshot(tmp_path, {"segments": [], "device_traces": [entries]})
    refused(r, "s.pickle", "[1]", words)
    assert not (tmp_path / "s.memtrace").exists()


@needs_memrel
def test_a_bad_alloc_size_is_said_at_the_alloc_not_its_free(tmp_path):
    """c7-bad-alloc-size-blamed-on-free (arguable in the fortieth pass): an alloc of size -5
    followed by its free was refused at the free, "allocated with size -5", where a lone such
    alloc is refused at its own entry."""
    entries = [{"action": "alloc", "addr": 4096, "size": -5, "stream": 0},
               {"action": "free_completed", "addr": 4096, "size": 16, "stream": 0}]
    r = _import_snapshot(tmp_path, {"segments": [], "device_traces": [entries]})
    refused(r, "device_traces[0][0]", "out of range")
