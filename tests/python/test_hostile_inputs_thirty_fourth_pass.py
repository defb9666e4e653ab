"""What the thirty-third adversarial pass of issue 23 left open and the thirty-fourth found
(docs/inputs.md, "Thirty-third pass" and "Thirty-fourth pass"): each test fails on the code
before its fix."""

import json
import os
import shutil
import signal
import subprocess
import threading
import time

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, needs_memrel, private_copy, refused
from test_hostile_inputs_twenty_seventh_pass import _children


def _workload(name, nbytes, sleep_ms):
    return json.dumps({"schema": "memrel.workload/1", "name": name,
                       "steps": [{"alloc": "x", "bytes": nbytes}, {"sleep_ms": sleep_ms},
                                 {"free": "x"}]})


@needs_memrel
def test_a_workload_replaced_while_the_run_reads_it_stops_the_run(tmp_path):
    """c5-workload-edited-mid-run-mixed-cells: each cell reads its workload file again; a file
    replaced while the first cell ran gave one cell of the old content and one of the new under
    one name and one digest, exit 0. The run stops (exit 2, one line naming the file), the cell
    that may have read either content unrecorded, no results written."""
    workload = tmp_path / "w.json"
    workload.write_text(_workload("w", 4096, 2500))
    journal = tmp_path / "r.json.journal"

    def replace_once_the_first_cell_runs():
        deadline = time.monotonic() + 30
        while not journal.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        (tmp_path / "w.json.new").write_text(_workload("w", 1 << 20, 100))
        os.replace(tmp_path / "w.json.new", workload)

    editor = threading.Thread(target=replace_once_the_first_cell_runs)
    editor.start()
    r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc,host-malloc-retain",
                        "-w", "./w.json", "-o", "r.json", "--no-host-lane"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    editor.join()
    line = refused(r, "./w.json", "changed while the run read it", "0 of 2 cells finished")
    assert "r.json.journal" in line
    assert not (tmp_path / "r.json").exists()


def _snapshot(path):
    import pickle
    events = [{"action": "alloc", "addr": 4096, "size": 1 << 20, "stream": 0},
              {"action": "free_completed", "addr": 4096, "size": 1 << 20, "stream": 0}]
    with open(path, "wb") as f:
        pickle.dump({"device_traces": [events], "segments": []}, f)


# Every writer, its output under FOLDER (a path with missing folders, or one under a file).
_WRITERS = {
    "run -o": ["run", "-q", "-b", "null", "--include-null", "-w", "temp-then-delete",
               "-o", "{folder}/r.json"],
    "cell --out": ["cell", "--backend", "null", "--workload", "temp-then-delete",
                   "--out", "{folder}/c.json"],
    "compare --markdown": ["compare", HOST_RUN, HOST_RUN, "--markdown", "{folder}/m.md"],
    "compare --json": ["compare", HOST_RUN, HOST_RUN, "--json", "{folder}/v.json"],
    "compare --junit": ["compare", HOST_RUN, HOST_RUN, "--junit", "{folder}/j.xml"],
    "trace import -o": ["trace", "import", "{snapshot}", "-o", "{folder}/t.memtrace"],
    "report --out": ["report", "--out", "{folder}/rep", HOST_RUN],
    "history --db": ["history", "--db", "{folder}/h.sqlite", "add", HOST_RUN],
}


def _args(tmp_path, writer, folder):
    snapshot = tmp_path / "snap.pickle"
    _snapshot(snapshot)
    workload = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
    return [a.replace("{folder}", folder).replace("{snapshot}", str(snapshot))
            .replace("temp-then-delete", workload if writer == "cell --out" else a)
            for a in _WRITERS[writer]]


@needs_memrel
@pytest.mark.parametrize("writer", sorted(_WRITERS))
def test_every_writer_makes_its_outputs_missing_folders(tmp_path, writer):
    """c2-missing-parent-folder-two-rules: `run -o`, `history --db`, `bench -o` and `advise
    --out` made an output's missing folders; `cell --out`, compare's outputs, `trace import -o`,
    `history changes --markdown`, `advise --json` and `report --out` refused them. One rule:
    every writer makes them."""
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run([MEMREL, *_args(tmp_path, writer, "new/sub")], capture_output=True,
                       text=True, cwd=work, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr)
    made = os.listdir(work / "new" / "sub")
    assert len(made) == 1 and not made[0].startswith("."), made


@needs_memrel
@pytest.mark.parametrize("writer", sorted(_WRITERS))
def test_a_folder_that_cannot_be_made_is_refused_before_any_work(tmp_path, writer):
    """The same rule's other half: a file where a folder must be made is said in one line,
    exit 2, and nothing is made or left."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "afile").write_text("mine")
    r = subprocess.run([MEMREL, *_args(tmp_path, writer, "afile/sub")], capture_output=True,
                       text=True, cwd=work, timeout=120)
    refused(r, "afile")
    assert os.listdir(work) == ["afile"]
    assert (work / "afile").read_text() == "mine"


@needs_memrel
@pytest.mark.parametrize("figure,value", [("overhead_ratio", -1e15), ("utilization", 9e15),
                                          ("utilization", None)])
@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_peak_ratio_that_is_not_its_peaks_ratio_is_refused(tmp_path, figure, value, command):
    """c4-results-negative-overhead-ratio-ranked-best (arguable in the thirty-third pass): every
    overhead_ratio -1e15 and utilization 9e15 passed the readers, and the report ranked that
    backend best. Each is its peaks' ratio, as memrel computes it, or the file is refused."""
    with open(HOST_RUN) as f:
        run = json.load(f)
    for cell in run["cells"]:
        if cell["metrics"].get(figure) is not None:
            cell["metrics"][figure] = value
            break
    else:
        pytest.fail(f"no cell of {HOST_RUN} has {figure}")
    (tmp_path / "x.json").write_text(json.dumps(run))
    args = ["compare", "x.json", HOST_RUN] if command == "compare" else ["report", "--out", "rep",
                                                                         "x.json"]
    r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "x.json", f"metrics.{figure}", "is not peak_")
    assert not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("action", ["\u2003allocate", "allocate\u00a0", "allocate\u3000"])
def test_an_rmm_action_with_a_unicode_space_around_it_is_refused(tmp_path, action):
    """c7-rmm-action-unicode-space (arguable in the thirty-third pass): str.strip() read
    "\\u2003allocate\\u00a0" as allocate, where Size and Pointer refuse such spaces. ASCII blanks
    only, as for every field."""
    log = tmp_path / "l.csv"
    log.write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                   f"1,10:00:00.000001,{action},0x10,4096,0x0\n"
                   "1,10:00:00.000002,free,0x10,4096,0x0\n", encoding="utf-8")
    r = subprocess.run([MEMREL, "trace", "import", str(log), "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "l.csv", "unknown action")
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("spelling", ["1E2", "100.0", "0e0"])
def test_a_whole_number_spelled_as_a_float_is_said_as_such(tmp_path, spelling):
    """c4-results-whole-number-as-float-says-out-of-range (arguable in the thirty-third pass):
    a byte figure spelled 1E2 or 100.0 was refused as "out of range (0 to 2^53)"."""
    with open(HOST_RUN) as f:
        text = f.read()
    requested = json.loads(text)["cells"][0]["metrics"]["peak_requested"]
    old = f'"peak_requested": {requested}'
    assert old in text
    (tmp_path / "x.json").write_text(text.replace(old, f'"peak_requested": {spelling}', 1))
    r = subprocess.run([MEMREL, "compare", "x.json", HOST_RUN], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    line = refused(r, "x.json", "metrics.peak_requested", "written as one")
    assert "out of range" not in line


@needs_memrel
@pytest.mark.parametrize("name", ["$\\frac{$", "a$^$b", "$x_$"])
def test_a_name_holding_dollars_is_drawn_as_written(tmp_path, name):
    """c9-report-dollar-*, c9-report-mathtext-name-rendered: matplotlib parsed a workload named
    `$\\frac{$` as TeX math, and the report stopped with a ParseSyntaxException (exit 4); `q$\\alpha$`
    drew an alpha. Every text is drawn as written."""
    with open(HOST_RUN) as f:
        run = json.load(f)
    old = run["cells"][0]["workload"]
    for cell in run["cells"]:
        if cell["workload"] == old:
            cell["workload"] = name
    (tmp_path / "x.json").write_text(json.dumps(run))
    r = subprocess.run([MEMREL, "report", "--out", "rep", "x.json"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    drawn = "".join(p.read_text(errors="replace") for p in (tmp_path / "rep").glob("*.svg"))
    assert f"<!-- {name} -->" in drawn


@needs_memrel
def test_a_history_line_whose_name_begins_with_an_underscore_is_in_the_legend(tmp_path):
    """c9-report-history-underscore-workload: matplotlib leaves a label beginning with "_" out of
    an automatic legend: a workload `_w` was drawn unnamed. The legend takes the labels given."""
    with open(HOST_RUN) as f:
        base = json.load(f)
    old = base["cells"][0]["workload"]
    for cell in base["cells"]:
        if cell["workload"] == old:
            cell["workload"] = "_w"
    files = []
    for night in range(1, 5):
        base["context"]["started"] = f"2026-11-0{night}T00:00:00Z"
        base["context"]["finished"] = f"2026-11-0{night}T00:01:00Z"
        files.append(tmp_path / f"r{night}.json")
        files[-1].write_text(json.dumps(base))
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", *map(str, files)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "report", "--history", "h.sqlite", "--out", "rep"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    charts = list((tmp_path / "rep").glob("history-*.svg"))
    assert charts
    assert any("<!-- _w -->" in p.read_text(errors="replace") for p in charts)


@needs_memrel
@pytest.mark.parametrize("name", ["Host-Malloc", "host-malloc_top_pad_1-f72452f0"])
def test_advise_refuses_backends_that_would_share_a_report_page(tmp_path, name):
    """c6-advise-case-only-backend-names, c6-advise-sanitised-page-name-collision: advise swept
    host-malloc (or host-malloc:top_pad=1) beside a backend file named as its page name, exit 0,
    and the report refused advise's results. Refused at the start, as run refuses the pair."""
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        backend = json.load(f)
    backend["name"] = name
    backend["library"] = os.path.join(os.path.dirname(MEMREL),
                                      "libmemrel_pluggable_host_example.so")
    (tmp_path / "be.json").write_text(json.dumps(backend))
    with open(os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")) as f:
        (tmp_path / "small.csv").write_text("".join(f.readlines()[:201]))
    first = "host-malloc" if name == "Host-Malloc" else "host-malloc:top_pad=1"
    r = subprocess.run([MEMREL, "-q", "advise", "small.csv", "-b", first, "-b", "./be.json",
                        "--out", "adv"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "would share one report page", name)
    assert not (tmp_path / "adv").exists()


@needs_memrel
@pytest.mark.parametrize("command", ["run", "report"])
def test_dev_stdin_is_the_file_it_names_for_every_reader(tmp_path, command):
    """c10-run-w-dev-stdin-cell-crashed, c10-report-dev-stdin-told-char-device: `run -w
    /dev/stdin < w.json` read the file, and each cell reopened /dev/stdin as its own standard
    input: recorded as the allocator crashing, exit 3; the report's part called the user's
    regular file "a character device". /dev/stdin is the file it names in memrel."""
    source = (os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
              if command == "run" else HOST_RUN)
    args = (["run", "-q", "-b", "host-malloc", "-w", "/dev/stdin", "-o", "r.json"]
            if command == "run" else ["report", "--out", "rep", "/dev/stdin"])
    with open(source) as stdin:
        r = subprocess.run([MEMREL, *args], stdin=stdin, capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    if command == "run":
        with open(tmp_path / "r.json") as f:
            cells = json.load(f)["cells"]
        assert [c["status"] for c in cells] == ["ok"]


@needs_memrel
def test_a_default_run_without_the_example_library_records_it_unavailable(tmp_path):
    """c8-default-run-missing-example-library-exit2: a build without the pluggable examples'
    libraries (a copy of memrel alone) listed them unavailable, and a plain `run` stopped with
    exit 2 blaming memrel's own backend file. Its cells are `unavailable`, the reason said."""
    copy = private_copy(tmp_path)  # the binary, without the plugins beside it
    r = subprocess.run([str(copy / "build" / "ci" / "memrel"), "-q", "run", "-w",
                        "temp-then-delete", "-o", "r.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "r.json") as f:
        cells = {c["backend"]: c for c in json.load(f)["cells"]}
    example = cells["pluggable-host-example"]
    assert example["status"] == "unavailable", example["status"]
    assert "libmemrel_pluggable_host_example.so" in example["reason"], example["reason"]


def _stop_the_child_named(run, word):
    """SIGSTOPs run's child whose command line holds `word` once it appears, and returns its
    pid; the test is skipped when run ended first."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and run.poll() is None:
        for pid in _children(run.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if word in f.read():
                        os.kill(pid, signal.SIGSTOP)
                        return pid
            except OSError:
                pass
        time.sleep(0.01)
    run.kill()
    run.communicate()
    pytest.skip("the child ended before it was seen")


def _continue_and_end(pid):
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


@needs_memrel
def test_a_cell_stopped_from_outside_past_its_timeout_is_not_the_allocators_timeout(tmp_path):
    """c8-cell-sigstop-recorded-as-timeout: a cell stopped with SIGSTOP past --timeout was
    recorded as the allocator's `timeout`, exit 3, and kept by --resume. The machine's state:
    exit 4, one line saying so, the cell unrecorded."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads",
                             "trace-convnet-varying-batch-and-size.memtrace"), tmp_path / "tr.memtrace")
    env = dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS="1000000")  # 1 ms per allocation
    run = subprocess.Popen([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w",
                            "tr.memtrace", "-o", "r.json", "--timeout", "2"], cwd=tmp_path,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cell = _stop_the_child_named(run, b"\0--workload\0")  # a cell, not the library's check
    try:
        _, err = run.communicate(timeout=60)
    finally:
        _continue_and_end(cell)
    assert run.returncode == 4, err
    assert "stopped from outside" in err and "not the allocator's failure" in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r.json").exists()


def _trace_with_header(path, out, change):
    import struct
    data = open(path, "rb").read()
    length = struct.unpack_from("<I", data, 8)[0]
    header = json.loads(data[16:16 + length])
    change(header)
    body = json.dumps(header, separators=(",", ":")).encode()
    with open(out, "wb") as f:
        f.write(data[:8] + struct.pack("<II", len(body), struct.unpack_from("<I", data, 12)[0]))
        f.write(body + data[16 + length:])


@needs_memrel
@pytest.mark.parametrize("key,value,words", [
    ("marks", "x", "must be a non-negative integer"), ("marks", -1, "non-negative"),
    ("marks", 5, "the header has"), ("allocated_at_start", 999, "the records begin with"),
    ("freed_at_end", 999, "the records end with")])
def test_a_trace_whose_counts_are_not_its_records_is_refused(tmp_path, key, value, words):
    """c7-trace-header-counts-unchecked: validate said "ok" of a trace whose counts.marks was
    "x", -1 or 5 with no marks, or whose allocated_at_start / freed_at_end the records deny
    (docs/traces.md: the loader checks the counts against the records)."""
    source = os.path.join(ROOT, "benchmarks", "workloads",
                          "trace-convnet-varying-batch-and-size.memtrace")

    def change(header):
        header["counts"][key] = value
        if key == "marks" and value == 5:
            header["marks"] = []
    _trace_with_header(source, tmp_path / "t.memtrace", change)
    r = subprocess.run([MEMREL, "validate", "t.memtrace"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    refused(r, "t.memtrace", f"header.counts.{key}", words)


@needs_memrel
def test_a_run_whose_results_its_readers_would_refuse_is_refused_at_the_start(tmp_path):
    """c7-run-writes-results-its-readers-refuse: two traces of 265,000 marks each on three
    backends wrote 147 MB of results, exit 0, which compare, history, report and merge refuse
    (128 MiB). Refused before the first cell, saying why; nothing written."""
    source = os.path.join(ROOT, "benchmarks", "workloads",
                          "trace-rmm-log-convnet-on-rmm-pool.memtrace")
    marks = [{"event": 1, "label": "allocate-failure", "time_us": 0, "bytes": 16}] * 260000
    for name in ("m1", "m2"):
        def change(header, name=name):
            header["name"] = name
            header["marks"] = marks
            header["counts"]["marks"] = len(marks)
        _trace_with_header(source, tmp_path / f"{name}.memtrace", change)
    r = subprocess.run([MEMREL, "-q", "run", "-b", "null,host-malloc,host-malloc-retain",
                        "--include-null", "-w", "m1.memtrace,m2.memtrace", "-o", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, "the results would take at least", "MiB compare, history, report and merge read")
    assert not (tmp_path / "r.json").exists()
    assert not (tmp_path / "r.json.journal").exists()


@needs_memrel
def test_a_zygote_stopped_from_outside_is_not_the_allocators_timeout(tmp_path):
    """c8-zygote-stopped-recorded-as-cell-timeout: with --zygote all, memrel's own zygote stopped
    by SIGSTOP made the next cell wait 30 s and be recorded as the allocator's `timeout`, exit 3.
    The machine's state: exit 4, one line, no cell of it recorded."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads",
                             "trace-convnet-varying-batch-and-size.memtrace"), tmp_path / "tr.memtrace")
    env = dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS="100000")
    run = subprocess.Popen([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w",
                            "tr.memtrace,temp-then-delete", "-o", "r.json", "--zygote", "all",
                            "--timeout", "60"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    zygote = _stop_the_child_named(run, b"\0cell\0--backend\0pluggable-host-example\0--zygote")
    try:
        _, err = run.communicate(timeout=120)
    finally:
        _continue_and_end(zygote)
    assert run.returncode == 4, err
    assert "stopped from outside" in err and "not the allocator's failure" in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("command", [["list"], ["run", "-b", "host-malloc", "-w",
                                                "temp-then-delete", "-o", "r.json"]])
def test_a_memrel_copied_alone_says_its_installation_is_incomplete(tmp_path, command):
    """c8-copied-binary-list-blames-option (arguable in the thirty-third pass): memrel copied
    alone said "--workloads-dir: cannot read ...", exit 2, of an option nobody gave, where its
    Python parts say the installation is incomplete, exit 4. Given, the option is still blamed."""
    alone = tmp_path / "memrel"
    shutil.copy(MEMREL, alone)
    r = subprocess.run([str(alone), *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=60)
    refused(r, "installation is incomplete", exit_code=4)
    assert "--workloads-dir" not in r.stderr
    r = subprocess.run([str(alone), "--workloads-dir", str(tmp_path / "none"), *command],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    refused(r, "--workloads-dir: cannot read")


@needs_memrel
def test_bench_into_memrels_own_folder_is_refused_for_what_it_is(tmp_path):
    """c1-bench-o-own-folder-false-reason (arguable in the thirty-third pass): `bench -o` into
    memrel's workloads folder was refused as holding "the input ..." that "would be replaced";
    bench reads no workload and keeps what is in its folder. Said as memrel's own file."""
    copy = private_copy(tmp_path)
    bench = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    if not os.path.exists(bench):
        pytest.skip("no memrel_bench in this build (Google Benchmark not installed)")
    (copy / "build" / "ci" / "benchmarks").mkdir()
    shutil.copy(bench, copy / "build" / "ci" / "benchmarks" / "memrel_bench")
    r = subprocess.run([str(copy / "build" / "ci" / "memrel"), "bench", "-b", "null", "--quick",
                        "-o", str(copy / "benchmarks" / "workloads")], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    line = refused(r, "a file of memrel's own")
    assert "would be replaced" not in line and "(the input" not in line


# --- Found by the thirty-fifth adversarial pass ----------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("name", ["log.json", "log.memtrace"])
def test_a_log_in_the_workloads_folder_is_not_imported_by_a_plain_run(tmp_path, name):
    """c10-log-named-*-in-workloads-dir: an RMM log named log.json (or .memtrace) in the
    workloads folder: `list` called it INVALID, a plain run imported and ran it, exit 0; run's
    help says a log there is not imported. Refused, naming it."""
    (tmp_path / "wl").mkdir()
    shutil.copy(os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv"),
                tmp_path / "wl" / name)
    r = subprocess.run([MEMREL, "-q", "--workloads-dir", "wl", "run", "-b", "null",
                        "--include-null", "-o", "r.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, name, "is not imported by a plain run")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_backends_folder_file_sharing_a_page_with_a_table_backend_is_named(tmp_path):
    """c6-backends-dir-case-twin-blames-b: a backend file `Host-Malloc` in --backends-dir made a
    plain run refuse "-b: the backend names ... (Host-Malloc)": -b was never given, and the file
    was not named."""
    (tmp_path / "be").mkdir()
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        backend = json.load(f)
    backend["name"] = "Host-Malloc"
    backend["library"] = os.path.join(os.path.dirname(MEMREL),
                                      "libmemrel_pluggable_host_example.so")
    (tmp_path / "be" / "x.json").write_text(json.dumps(backend))
    r = subprocess.run([MEMREL, "-q", "--backends-dir", "be", "run", "-w", "temp-then-delete",
                        "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    line = refused(r, "x.json", "would share one report page")
    assert "-b:" not in line


# --- Found by the thirty-sixth adversarial pass ----------------------------------------------------

@needs_memrel
def test_repeats_of_an_empty_list_nested_deep_are_refused_at_once(tmp_path):
    """c4-nested-empty-repeat-*: a repeat of 1,000,000 around a repeat of 1,000,000 of no steps
    never grew past the step cap, and validate, list and run turned 10^12 times (run deaf to
    SIGTERM meanwhile). Every repetition adds what the first did: none, and the rest are not
    turned."""
    workload = {"schema": "memrel.workload/1", "name": "w",
                "steps": [{"repeat": 1000000, "steps": [{"repeat": 1000000, "steps": []}]}]}
    (tmp_path / "w.json").write_text(json.dumps(workload))
    r = subprocess.run([MEMREL, "validate", "w.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=30)
    refused(r, "w.json", "at least one step")
