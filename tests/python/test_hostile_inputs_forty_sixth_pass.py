"""What the forty-sixth adversarial pass of issue 23 found (docs/inputs.md, "Forty-sixth pass").
Each test fails on the code before its fix."""

import json
import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

TRACE_RUN = os.path.join(ROOT, "tests", "data", "host-trace-run.json")
WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")


def memrel(tmp_path, *args, env=None):
    return subprocess.run([MEMREL, "-q", *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env=env)


@needs_memrel
def test_a_nul_byte_in_json_is_refused_with_what_follows_it(tmp_path):
    """c7-json-nul-then-garbage-accepted: nlohmann's reader ends its input at a NUL byte, so a
    workload, a results file or a journal line with NUL and garbage after the JSON passed."""
    workload = tmp_path / "w.json"
    workload.write_bytes(open(WORKLOAD, "rb").read().rstrip() + b"\0garbage")
    refused(memrel(tmp_path, "validate", workload), "w.json", "a NUL byte")
    results = tmp_path / "r.json"
    results.write_bytes(open(TRACE_RUN, "rb").read().rstrip() + b"\0{\"x\": 1}")
    refused(memrel(tmp_path, "compare", TRACE_RUN, results), "r.json", "a NUL byte")
    refused(memrel(tmp_path, "history", "--db", "h.sqlite", "add", results), "a NUL byte")
    assert not (tmp_path / "h.sqlite").exists()


def edited_trace_run(tmp_path, edit):
    doc = json.load(open(TRACE_RUN))
    edit(doc["cells"][0]["trace"])
    path = tmp_path / "cur.json"
    path.write_text(json.dumps(doc))
    return path


@needs_memrel
@pytest.mark.parametrize("scale", ["x", "0", "1/0", "1/-2", "1/1", "01", "1/02", "", "auto"])
def test_a_trace_scale_is_written_as_memrel_writes_it(tmp_path, scale):
    """c4-results-trace-scale-garbage-skips-gate, c4-report-history-trace-scale-unchecked: any
    string was a trace cell's scale; an unknown one made the cell "run at another --trace-scale"
    and took it out of the gate (exit 0 with a regression), and report and history took it."""
    current = edited_trace_run(tmp_path, lambda t: t.update(scale=scale))
    refused(memrel(tmp_path, "compare", TRACE_RUN, current), "trace.scale", "is not 1 or 1/N")
    refused(memrel(tmp_path, "history", "--db", "h.sqlite", "add", current), "trace.scale")
    refused(memrel(tmp_path, "report", current, "--out", "rep"), "trace.scale", "is not 1 or 1/N")
    assert sorted(os.listdir(tmp_path)) == ["cur.json"]


def set_in(path, value):
    def edit(trace):
        *parents, last = path
        holder = trace
        for key in parents:
            holder = holder[key]
        holder[last] = value
    return edit


@needs_memrel
@pytest.mark.parametrize("path, value, said", [
    (("recorded_reserved", "event", 3), 99999, "trace.recorded_reserved.event[3]"),
    (("marks", 1, "event"), 10 ** 9, "trace.marks.event[1]"),
    (("series", "event", 1), 10 ** 6, "trace.series.event[1]"),
    (("ns_per_event",), -1766139.5, "trace.ns_per_event"),
    (("allocs",), 1000000, "trace.allocs"),
    (("peak_requested_event",), 10 ** 9, "trace.peak_requested_event"),
])
def test_a_trace_cells_figures_agree_with_one_another(tmp_path, path, value, said):
    """c4-report-recorded-reserved-event-out-of-trace, c4-report-trace-fields-negative,
    c4-report-trace-allocs-wrong-message: events past the trace's end were drawn, a negative
    ns_per_event shown, an impossible allocs blamed on a second trace that was not there."""
    current = edited_trace_run(tmp_path, set_in(path, value))
    refused(memrel(tmp_path, "compare", TRACE_RUN, current), said)
    refused(memrel(tmp_path, "report", current, "--out", "rep"), said)


@needs_memrel
def test_the_committed_trace_results_are_consistent(tmp_path):
    """The rules hold for what memrel writes: the H200 baseline's trace cells and the test data."""
    baseline = os.path.join(ROOT, "results", "baselines", "h200", "suite.json")
    for path in (baseline, TRACE_RUN):
        r = memrel(tmp_path, "compare", path, path)
        assert r.returncode == 0, r.stderr


@needs_memrel
def test_a_run_that_failed_before_its_first_cell_does_not_block_the_next(tmp_path):
    """c8-run-emfile-leaves-journal: under `ulimit -n 7` run failed at its first cell (exit 4) and
    left its journal's header; the same run again was refused as "an interrupted run"."""
    failed = subprocess.run(["bash", "-c", f"ulimit -n 7; exec {MEMREL} -q run -b host-malloc "
                             f"-w temp-then-delete -o r.json"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120)
    assert failed.returncode == 4, failed.stderr
    again = memrel(tmp_path, "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "r.json")
    assert again.returncode == 0, again.stderr
    assert sorted(os.listdir(tmp_path)) == ["r.json"]


@needs_memrel
def test_history_list_leaves_an_empty_file_as_it_is(tmp_path):
    """c8-history-list-writes-empty-db: `history list` and `show` of an existing 0-byte --db wrote
    a history schema into the user's file, exit 0."""
    (tmp_path / "e.sqlite").write_bytes(b"")
    refused(memrel(tmp_path, "history", "--db", "e.sqlite", "list"), "an empty file")
    refused(memrel(tmp_path, "history", "--db", "e.sqlite", "show", "x:y"), "an empty file")
    assert (tmp_path / "e.sqlite").read_bytes() == b""


@needs_memrel
def test_a_report_without_descriptors_leaves_no_temporary_folder(tmp_path):
    """c8-report-emfile-leaves-tmp-folder: under `ulimit -n 9` to 11 report exited 4 "nothing
    written" beside its DIR.tmp-PID (its own cleanup had no descriptors left)."""
    for limit in (9, 10, 11):
        r = subprocess.run(["bash", "-c", f"ulimit -n {limit}; exec {MEMREL} -q report "
                            f"{TRACE_RUN} --out rep{limit}"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
        assert r.returncode in (0, 4), r.stderr
        assert [n for n in os.listdir(tmp_path) if ".tmp-" in n] == [], (limit, r.stderr)


@needs_memrel
def test_resume_says_a_symbolic_link_where_the_journal_goes(tmp_path):
    """c2-resume-dangling-journal: `run --resume` with a dangling link at r.json.journal said "no
    journal to resume", where a fresh run says it is a symbolic link."""
    os.symlink("nowhere", tmp_path / "r.json.journal")
    refused(memrel(tmp_path, "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "r.json",
                   "--resume"), "r.json.journal", "is a symbolic link")
    assert os.readlink(tmp_path / "r.json.journal") == "nowhere"


@needs_memrel
@pytest.mark.parametrize("command", ["bench", "ab"])
def test_a_filter_memrel_bench_cannot_compile_is_said_so(tmp_path, command):
    """c9-bench-filter-invalid-regex: `--filter '(a'` was "matches no benchmark"."""
    out = ["-o", "b"] if command == "bench" else ["--out", "ab"]
    refused(memrel(tmp_path, command, "-b", "null", "--filter", "(a", *out),
            "--filter '(a'", "not a regular expression")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_no_output_is_named_as_a_journal(tmp_path):
    """c5-results-named-as-journal: `run -o r.json.journal` wrote results where a run of r.json
    keeps its journal; that run was then refused as "interrupted"."""
    refused(memrel(tmp_path, "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                   "r.json.journal"), "ends in .journal")
    log = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
    refused(memrel(tmp_path, "trace", "import", log, "-o", "t.journal"), "ends in .journal")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_block_ending_past_2_64_is_refused(tmp_path):
    """c7-snapshot-block-past-2-64: 4096 bytes at 0xffffffffffffff00 were imported, from a
    snapshot and from an RMM log."""
    import pickle
    top = 0xffffffffffffff00
    events = [{"action": "alloc", "addr": top, "size": 4096, "stream": 0},
              {"action": "free_completed", "addr": top, "size": 4096, "stream": 0}]
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"device_traces": [events], "segments": []}))
    refused(memrel(tmp_path, "trace", "import", "s.pickle", "-o", "s.memtrace"), "ends past 2^64")
    (tmp_path / "l.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    f"1,10:00:00.000001,allocate,{top:#x},4096,0x0\n"
                                    f"1,10:00:00.000002,free,{top:#x},4096,0x0\n")
    refused(memrel(tmp_path, "trace", "import", "l.csv", "-o", "l.memtrace"), "line 2",
            "ends past 2^64")
    assert sorted(os.listdir(tmp_path)) == ["l.csv", "s.pickle"]


@needs_memrel
def test_history_changes_match_naming_nothing_is_refused(tmp_path):
    """c4-history-changes-match-nothing: a --match no metric contains was "0 change points",
    exit 0, where a --metric not in the history is exit 2."""
    host_run = os.path.join(ROOT, "tests", "data", "host-run.json")
    assert memrel(tmp_path, "history", "--db", "h.sqlite", "add", host_run).returncode == 0
    refused(memrel(tmp_path, "history", "--db", "h.sqlite", "changes", "--match", "no-such-zzz"),
            "--match 'no-such-zzz'", "no metric of the history contains it")


@needs_memrel
def test_an_ab_that_fails_before_its_first_round_leaves_no_folder(tmp_path):
    """c8-ab-emfile-leaves-skeleton: under `ulimit -n 5` ab failed (exit 4) and left --out with
    empty rounds/, reference/ and candidate/ (removed in the order made, --out came too early)."""
    r = subprocess.run(["bash", "-c", f"ulimit -n 5; exec {MEMREL} -q ab -b null --quick "
                        "--out ab"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 4, r.stderr
    assert os.listdir(tmp_path) == []
