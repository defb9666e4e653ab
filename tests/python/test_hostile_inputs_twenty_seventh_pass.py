"""What the twenty-seventh adversarial pass of issue 23 found (docs/inputs.md, "Twenty-seventh
pass"): each test fails on the code before its fix."""

import json
import os
import signal
import shutil
import subprocess
import sys
import time

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, needs_memrel, private_copy, refused


@needs_memrel
@pytest.mark.parametrize("target", ["build/ci/memrel-build-tree", "benchmarks/advise/grid.json",
                                    "benchmarks/trace-sources/rmm-pool-convnet.csv",
                                    "benchmarks/workloads/new-output.json"])
def test_memrels_own_data_is_no_output(tmp_path, target):
    """c1-run-out-build-tree-marker, c1-out-onto-default-advise-grid, c1-out-onto-trace-sources:
    `run -o` onto the build tree's marker left a memrel that found none of its files; onto the
    default advise grid, an advise that refused its own grid; both exit 0. Nothing below memrel's
    data folder (workloads, backends, grid, trace sources) is an output, as its code is not."""
    copy = private_copy(tmp_path)
    path = copy / target
    before = path.read_bytes() if path.exists() else None
    r = subprocess.run([str(copy / "build" / "ci" / "memrel"), "-q", "run", "-b", "null",
                        "--include-null", "-w", "temp-then-delete", "-o", str(path)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, str(path))
    assert (path.read_bytes() if path.exists() else None) == before


@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-b", "null", "--include-null", "-w", "./{tmp}", "-o", "r.json"],
    ["compare", "./{tmp}", HOST_RUN, "--markdown", "m.md"],
])
def test_an_input_named_like_the_outputs_temporary_stays(tmp_path, command):
    """c1-tmp-name-is-input-deleted: an input named OUT.tmp.PID, PID memrel's own (a shell's
    `exec`), was removed as "a leftover of an earlier process with this pid", exit 0. A name
    taken is never memrel's: the next free one is taken instead."""
    source = (os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
              if command[0] == "run" else HOST_RUN)
    out = "r.json" if command[0] == "run" else "m.md"
    script = (f'cp "$1" {out}.tmp.$$; exec "$0" -q ' +
              " ".join(a.replace("{tmp}", f"{out}.tmp.$$") for a in command))
    r = subprocess.run(["bash", "-c", script, MEMREL, source], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    kept = [n for n in os.listdir(tmp_path) if n.startswith(f"{out}.tmp.")]
    assert len(kept) == 1, os.listdir(tmp_path)
    with open(tmp_path / kept[0], "rb") as f, open(source, "rb") as g:
        assert f.read() == g.read()


@needs_memrel
def test_an_input_named_like_the_new_historys_temporary_stays(tmp_path):
    """The same for the temporary name a new history is made under (.memrel-new-history-PID)."""
    script = 'cp "$1" .memrel-new-history-$$; exec "$0" -q history --db h.sqlite add ./.memrel-new-history-$$'
    r = subprocess.run(["bash", "-c", script, MEMREL, HOST_RUN], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    kept = [n for n in os.listdir(tmp_path) if n.startswith(".memrel-new-history-")]
    assert len(kept) == 1, os.listdir(tmp_path)
    assert os.path.getsize(tmp_path / kept[0]) == os.path.getsize(HOST_RUN)


@needs_memrel
@pytest.mark.parametrize("suffix", ["-journal", "-wal"])
def test_a_results_file_where_sqlite_keeps_its_journal_is_refused(tmp_path, suffix):
    """c1-history-input-is-sqlite-journal: `history --db h.sqlite add h.sqlite-journal` (a
    results file there) was taken, and SQLite removed the input at the commit, exit 0."""
    shutil.copy(HOST_RUN, tmp_path / f"h.sqlite{suffix}")
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", f"h.sqlite{suffix}"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, f"h.sqlite{suffix}", "SQLite would remove it")
    assert sorted(os.listdir(tmp_path)) == [f"h.sqlite{suffix}"]


@needs_memrel
@pytest.mark.parametrize("folder", ["-o", "--logs"])
def test_bench_removes_no_input_named_like_a_stale_temporary(tmp_path, folder):
    """c1-bench-removes-backend-library, c1-bench-removes-its-bench-binary: bench's clean-up of
    the temporaries a killed bench left (bench-*.json.tmp-PID, PID gone) removed the library a
    backend file named, then said the backend was "unavailable here", exit 0; and the --bench
    program, exit 4. An input of the command is never a leftover."""
    build = os.path.dirname(MEMREL)
    (tmp_path / "bo").mkdir()
    kept = "bench-lib.json.tmp-999993" if folder == "-o" else "bench-lib.log.tmp-999993"
    shutil.copy(os.path.join(build, "libmemrel_pluggable_host_example.so"), tmp_path / "bo" / kept)
    backend = json.load(open(os.path.join(ROOT, "benchmarks", "backends",
                                          "pluggable-host-example.json")))
    backend.update(name="mine", library=f"./bo/{kept}")
    (tmp_path / "ph.json").write_text(json.dumps(backend))
    args = ["-o", "bo"] if folder == "-o" else ["-o", "out", "--logs", "bo"]
    r = subprocess.run([MEMREL, "-q", "bench", "-b", "./ph.json", "--quick", "--filter", "^pair/",
                        *args], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "bo" / kept).exists()
    assert (tmp_path / ("bo" if folder == "-o" else "out") / "bench-mine.json").exists()


@needs_memrel
def test_a_folder_that_takes_no_file_is_the_paths_for_bench_and_cell(tmp_path):
    """c2-readonly-folder-exit-codes: `bench -o` and `--logs` with an existing folder that takes
    no file (read-only, /proc) and `cell --out` in one said it as the machine's state, exit 4
    (cell only after running), where every other writer says it before any work, exit 2."""
    for args in (["bench", "-b", "null", "--quick", "--filter", "^pair/", "-o", "/proc/1"],
                 ["bench", "-b", "null", "--quick", "--filter", "^pair/", "-o", "o",
                  "--logs", "/proc/1"],
                 ["cell", "--backend", "null", "--workload",
                  os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"),
                  "--out", "/proc/1/c.json"]):
        r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        refused(r, "/proc/1", "cannot write")
    assert os.listdir(tmp_path) == []  # the -o folder made for the refused bench went again


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "bad.pickle", "-o", "t.memtrace"],
                                     ["report", "--out", "rep", "bad.json"]])
def test_a_wrapper_interpreter_that_exits_0_does_not_hide_a_refusal(tmp_path, command):
    """c8-python-wrapper-loses-status-exit0-nothing-written: MEMREL_PYTHON, a wrapper that runs
    Python and then exits 0 (a shim, `conda run`), made the part's refusal exit 0 with nothing
    written. memrel_entry.py tells memrel how memrel's code ended."""
    wrapper = tmp_path / "pywrap"
    wrapper.write_text(f'#!/bin/bash\n"{sys.executable}" "$@"\nexit 0\n')
    wrapper.chmod(0o755)
    (tmp_path / "bad.pickle").write_text("garbage\n")
    (tmp_path / "bad.json").write_text('{"schema":"memrel.results/1"}')
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120, env=dict(os.environ, MEMREL_PYTHON=str(wrapper)))
    refused(r, "bad.")
    assert not (tmp_path / command[-1 if command[0] == "trace" else 2]).exists()


@needs_memrel
@pytest.mark.parametrize("value", ["1e3", "20us", "0x10", "-5", "1000001"])
def test_the_host_examples_test_delay_is_read_strictly(tmp_path, value):
    """c4-test-delay-env-unchecked: MEMREL_TEST_HOST_EXAMPLE_DELAY_US was read by strtol: 1e3 as
    1 us, 20us as 20, 0x10 and -5 as no delay, exit 0 without a word."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w",
                        "temp-then-delete", "-o", "r.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_TEST_HOST_EXAMPLE_DELAY_US=value))
    refused(r, "MEMREL_TEST_HOST_EXAMPLE_DELAY_US", "whole microseconds")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_figure_of_2_to_the_53_plus_1_is_out_of_range_for_every_reader(tmp_path):
    """c4-results-float-field-2p53plus1, c4-bench-real-time-2p53plus1: 9007199254740993, read
    as a double, became 2^53 and passed compare and history add; the report (exact integers)
    refused the same file."""
    run = json.load(open(HOST_RUN))
    run["cells"][0]["metrics"]["overhead_ratio"] = 9007199254740993
    (tmp_path / "r.json").write_text(json.dumps(run))
    bench = json.load(open(os.path.join(ROOT, "tests", "data", "formats", "benchmark", "valid",
                                        "repetitions.json")))
    bench["benchmarks"][0]["real_time"] = 9007199254740993
    bench["benchmarks"][0]["time_unit"] = "ns"
    (tmp_path / "b.json").write_text(json.dumps(bench))
    for args, words in ((["compare", "r.json", "r.json"], ["r.json", "2^53"]),
                        (["history", "--db", "h.sqlite", "add", "r.json"], ["r.json", "2^53"]),
                        (["compare", "b.json", "b.json"], ["b.json", "real_time", "2^53"])):
        r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        refused(r, *words)
    assert sorted(os.listdir(tmp_path)) == ["b.json", "r.json"]


@needs_memrel
def test_merge_of_a_shard_of_a_huge_count_names_the_gap_at_once(tmp_path):
    """c4-merge-huge-shard-count: `run --shard 1/100000000`, then `merge` of that one file, took
    7.8 GB and no answer in 20 s: merge listed every missing shard. And a count beyond 2^53
    (c4-shard-count-over-2p53) was recorded in a results file, outside every figure's range."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "null", "--include-null", "-w",
                        "temp-then-delete", "--shard", "1/100000000", "-o", "s.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "merge", "-o", "m.json", "s.json"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=20)
    refused(r, "a gap", "2/100000000", "99999991 more")
    r = subprocess.run([MEMREL, "-q", "run", "-b", "null", "--include-null", "-w",
                        "temp-then-delete", "--shard", "1/18446744073709551615", "-o", "t.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "--shard", "2^53")
    assert os.listdir(tmp_path) == ["s.json"]


@needs_memrel
def test_a_json_array_of_a_million_objects_is_read_in_linear_time(tmp_path):
    """c7-json-objects-in-array-quadratic-ignores-sigterm, c7-trace-many-marks-quadratic-load:
    nlohmann's parser callback walked an array's elements after each object in it: a 3 MB results
    file of 1,000,000 `{}` kept compare busy for minutes (and a trace of 200,000 marks took 7.5 s
    to load, every cell again). Not a speed target: the old code took minutes; this is refused at
    once, naming what is missing."""
    (tmp_path / "r.json").write_text('{"schema":"memrel.results/1","cells":[' +
                                     ",".join(["{}"] * 1000000) + "]}")
    r = subprocess.run([MEMREL, "-q", "compare", "r.json", "r.json"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=60)
    refused(r, "r.json", "context")


def children_of(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


@needs_memrel
def test_a_zygote_killed_from_outside_is_no_crash_of_the_allocator(tmp_path):
    """c8-zygote-killed-cell-recorded-crashed: with --zygote all, killing memrel's own zygote
    (as the OOM killer might) took its running cell down, recorded `crashed`, exit 3, kept by
    --resume. The run stops (exit 4, the finished cells journaled) and --resume runs it again."""
    for name, steps in (("a", []), ("slow", [{"sleep_ms": 3000}]), ("c", [])):
        (tmp_path / f"{name}.json").write_text(json.dumps(
            {"schema": "memrel.workload/1", "name": name,
             "steps": [{"alloc": "x", "bytes": 4096}, *steps, {"free": "x"}, {"mark": "end"}]}))
    args = [MEMREL, "-q", "run", "-b", "host-malloc", "-w", "a.json", "-w", "slow.json", "-w",
            "c.json", "-o", "r.json", "--zygote", "all"]
    run = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    try:
        deadline = time.monotonic() + 30
        zygote = None
        while zygote is None and time.monotonic() < deadline:
            for pid in children_of(run.pid):
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if b"--zygote" in f.read() and children_of(pid):
                        zygote = pid
            time.sleep(0.05)
        assert zygote is not None, "no zygote with a cell seen"
        time.sleep(0.5)
        os.kill(zygote, signal.SIGKILL)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 4, err
    assert "zygote" in err and "not the allocator's failure" in err, err
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    cells = json.load(open(tmp_path / "r.json"))["cells"]
    assert sorted(c["status"] for c in cells) == ["ok"] * 3


@needs_memrel
def test_the_history_orders_runs_by_their_times_in_utc(tmp_path):
    """c4-history-started-offset-misorders: `history add` took hour 25 and February 30, and kept
    `started` as written: a run of 10:00+09:00 (01:00 UTC, the earliest) came last in `show`."""
    run = json.load(open(HOST_RUN))
    for i, (started, mib) in enumerate([("2026-12-05T10:00:00+09:00", 111),
                                        ("2026-12-05T05:00:00Z", 222),
                                        ("2026-12-05T03:00:00Z", 333)]):
        run["context"]["started"] = started
        metrics = run["cells"][0]["metrics"]
        metrics["peak_reserved"] = mib << 20
        # The ratios of that peak, as memrel computes them (the readers refuse others).
        metrics["overhead_ratio"] = metrics["peak_reserved"] / metrics["peak_requested"]
        metrics["utilization"] = metrics["peak_allocated"] / metrics["peak_reserved"]
        (tmp_path / f"r{i}.json").write_text(json.dumps(run))
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", "r0.json", "r1.json",
                        "r2.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    metric = f"{run['cells'][0]['backend']}/{run['cells'][0]['workload']}:peak_reserved"
    r = subprocess.run([MEMREL, "history", "--db", "h.sqlite", "show", metric],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Trend: 111.00 MiB -> 222.00 MiB" in r.stdout, r.stdout
    run["context"]["started"] = "2026-02-30T10:00:00Z"
    (tmp_path / "bad.json").write_text(json.dumps(run))
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", "bad.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "bad.json", "2026-02-30")


@needs_memrel
@pytest.mark.parametrize("variable,value", [("LD_PRELOAD", "./evil.so"),
                                            ("LD_PRELOAD", "/lib/x.so lib/evil.so"),
                                            ("LD_LIBRARY_PATH", "/usr/lib:"),
                                            ("LD_AUDIT", "sub/evil.so")])
def test_a_backend_files_loader_paths_name_nothing_in_the_working_folder(tmp_path, variable,
                                                                          value):
    """c3-backend-file-env-relative-preload-from-cwd: a backend file's environment
    {"LD_PRELOAD": "./evil.so"} loaded evil.so from the folder memrel was started in, into every
    cell, exit 0; the file's own "library" is found from the file's folder."""
    backend = json.load(open(os.path.join(ROOT, "benchmarks", "backends",
                                          "pluggable-host-example.json")))
    backend.update(name="preloads", environment={variable: value})
    (tmp_path / "be.json").write_text(json.dumps(backend))
    r = subprocess.run([MEMREL, "-q", "run", "-b", "./be.json", "-w", "temp-then-delete", "-o",
                        "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "be.json", f"environment.{variable}", "working folder")
    assert os.listdir(tmp_path) == ["be.json"]


def test_the_h200_baselines_note_names_each_benchmark_files_commit_and_gpu():
    """c10-baseline-h200-bench-commit-vs-readme: results/baselines/README.md said every
    h200/bench-*.json was of commit 4dc5fce on GPU-7ef01d99; two were of 1ace11b on another
    lease. Each file's commit and GPU are named, and the two exceptions by their file names."""
    folder = os.path.join(ROOT, "results", "baselines", "h200")
    note = open(os.path.join(ROOT, "results", "baselines", "README.md"), encoding="utf-8").read()
    note = " ".join(note.split())
    for name in sorted(os.listdir(folder)):
        if not name.startswith("bench-"):
            continue
        context = json.load(open(os.path.join(folder, name)))["context"]
        fingerprint = context.get("memrel_fingerprint")
        if isinstance(fingerprint, str):
            fingerprint = json.loads(fingerprint)
        commit, gpu = context["memrel_git_commit"], fingerprint["gpu_uuid"][:12]
        assert commit in note and gpu in note, (name, commit, gpu)
        if commit != "4dc5fce":
            assert f"`{name}`" in note, name


@needs_memrel
@pytest.mark.parametrize("field,value", [("work_ns", -5), ("exit_ns", 2 ** 53 + 1),
                                         ("started_by", 3), ("exit_overlapped", "yes")])
def test_the_report_reads_a_cells_timing_as_compare_does(tmp_path, field, value):
    """c10-readers-disagree-negative-timing: timing.work_ns = -5 was refused by compare and
    history add, drawn by the report, exit 0."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "null", "--include-null", "-w", "single-large",
                        "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    run = json.load(open(tmp_path / "r.json"))
    os.unlink(tmp_path / "r.json")
    run["cells"][0]["timing"][field] = value
    (tmp_path / "bad.json").write_text(json.dumps(run))
    for args in (["compare", "bad.json", "bad.json"], ["report", "--out", "rep", "bad.json"]):
        r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        refused(r, "bad.json", f"timing.{field}")
    assert os.listdir(tmp_path) == ["bad.json"]


@needs_memrel
def test_a_snapshots_times_stay_within_a_traces_figures(tmp_path):
    """c7-snapshot-time-span-negative-beyond-int64: time_us 2^63 - 1 then -2^63 (each a 64-bit
    integer) made a span and a mark time of -18446744073709551615, outside 64 bits, exit 0. A
    time is 0 to 2^53 microseconds; times that go back make no negative span or mark."""
    import pickle
    import struct

    with open(tmp_path / "huge.pickle", "wb") as f:
        pickle.dump({"device_traces": [[{"action": "snapshot", "time_us": 2 ** 63 - 1},
                                        {"action": "snapshot", "time_us": -(2 ** 63)}]],
                     "segments": []}, f, protocol=4)
    r = subprocess.run([MEMREL, "-q", "trace", "import", "huge.pickle", "-o", "h.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "huge.pickle", "time_us", "out of range")
    with open(tmp_path / "back.pickle", "wb") as f:
        pickle.dump({"device_traces": [[{"action": "snapshot", "time_us": 1000},
                                        {"action": "snapshot", "time_us": 5}]],
                     "segments": []}, f, protocol=4)
    r = subprocess.run([MEMREL, "-q", "trace", "import", "back.pickle", "-o", "b.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    data = (tmp_path / "b.memtrace").read_bytes()
    (length,) = struct.unpack_from("<I", data, 8)
    header = json.loads(data[16:16 + length])
    assert header["provenance"]["time_span_us"] == 0
    assert all(m.get("time_us") is None or m["time_us"] >= 0 for m in header["marks"])


@needs_memrel
def test_cells_help_lists_every_exit_code_it_gives():
    """c8-cell-result-fd-full-exit-5: `memrel cell` exits 5 when its result cannot be written
    (the runner's signal that the machine, not the allocator, failed); its help did not say so."""
    r = subprocess.run([MEMREL, "cell", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    help_text = " ".join(r.stdout.split())
    for code in ("0 the cell ran", "2 unusable input", "4 internal error", "5 the cell ran but"):
        assert code in help_text, help_text[-600:]


@needs_memrel
@pytest.mark.parametrize("command", [["list"], ["changes"]])
def test_a_users_file_where_sqlite_keeps_its_journal_is_never_taken_for_one(tmp_path, command):
    """c1-history-read-commands-delete-stray-journal: a results file named h.sqlite-journal
    beside the history was taken by SQLite for a stale journal: `history list` and `show`
    removed it, exit 0; `changes` said "attempt to write a readonly database"."""
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    shutil.copy(HOST_RUN, tmp_path / "h.sqlite-journal")
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", *command],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "h.sqlite-journal", "not an SQLite journal")
    assert (tmp_path / "h.sqlite-journal").read_bytes() == open(HOST_RUN, "rb").read()


@needs_memrel
@pytest.mark.parametrize("field,value", [("device", "0"), ("device", float("nan")),
                                         ("requested_size", -5), ("requested_size", "abc"),
                                         ("requested_size", 4 << 20), ("requested_size", 1000.0)])
def test_a_snapshots_segment_fields_are_what_torch_writes(tmp_path, field, value):
    """The twenty-eighth pass, c7-snapshot-segment-device-odd, c7-snapshot-requested-size-odd: a
    segment's device "0" or NaN was taken for another device's (its live blocks dropped from
    device 0's replay), and a live block's requested_size of -5, "abc", 1000.0 or more than its
    block was replayed as the block's size, each exit 0."""
    import pickle

    block = {"address": 1 << 21, "size": 2 << 20, "state": "active_allocated",
             "requested_size": 1000}
    segment = {"device": 0, "address": 1 << 21, "total_size": 2 << 20, "blocks": [block]}
    (block if field == "requested_size" else segment)[field] = value
    with open(tmp_path / "s.pickle", "wb") as f:
        pickle.dump({"device_traces": [[]], "segments": [segment]}, f, protocol=4)
    r = subprocess.run([MEMREL, "-q", "trace", "import", "s.pickle", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "s.pickle", "segments[0]", field)
    assert sorted(os.listdir(tmp_path)) == ["s.pickle"]


def rewritten_trace(source, target, change):
    """A copy of the trace `source` at `target` with its header passed through change(header)."""
    import struct

    data = open(source, "rb").read()
    (length,) = struct.unpack_from("<I", data, 8)
    header = json.loads(data[16:16 + length])
    change(header)
    text = json.dumps(header).encode()
    text += b" " * (-(16 + len(text)) % 8)
    with open(target, "wb") as f:
        f.write(b"MEMTRACE" + struct.pack("<II", len(text), 16) + text + data[16 + length:])


@needs_memrel
@pytest.mark.parametrize("case", ["points-backwards", "peak-below-points", "span-negative",
                                  "label-newline", "mark-bytes-negative", "mark-time-text"])
def test_a_traces_header_is_checked_as_the_importer_writes_it(tmp_path, case):
    """The twenty-eighth pass, c7-memtrace-header-unchecked: a hand-edited header with its
    recorded curve's points reversed (carried into results backwards), a peak_bytes of 1, a
    time_span_us of -1, a mark label with a newline, a mark's bytes -1 or time_us "x" was loaded."""
    recorded = os.path.join(ROOT, "benchmarks", "workloads",
                            "trace-transformer-varying-length.memtrace")
    (tmp_path / "m.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,08:00:00.000001,allocate,0x10,4096,0x1\n"
                                    "1,08:00:00.000002,allocate failure,0x0,8192,0x1\n"
                                    "1,08:00:00.000003,free,0x10,4096,0x1\n")
    r = subprocess.run([MEMREL, "-q", "trace", "import", "m.csv", "-o", "m.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    marked = str(tmp_path / "m.memtrace")
    source, change, place = {
        "points-backwards": (recorded, lambda h: h["recorded_reserved"]["points"].reverse(),
                             "recorded_reserved.points"),
        "peak-below-points": (recorded, lambda h: h["recorded_reserved"].update(peak_bytes=1),
                              "peak_bytes"),
        "span-negative": (recorded, lambda h: h["provenance"].update(time_span_us=-1),
                          "time_span_us"),
        "label-newline": (marked, lambda h: h["marks"][0].update(label="a\nb"), "label"),
        "mark-bytes-negative": (marked, lambda h: h["marks"][0].update(bytes=-1), "bytes"),
        "mark-time-text": (marked, lambda h: h["marks"][0].update(time_us="x"), "time_us"),
    }[case]
    rewritten_trace(source, tmp_path / "t.memtrace", change)
    r = subprocess.run([MEMREL, "-q", "validate", "t.memtrace"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "t.memtrace", place)


@needs_memrel
def test_an_rmm_logs_times_stay_within_a_traces_figures(tmp_path):
    """The twenty-eighth pass, c7-rmm-midnight-time-past-2-53: 120,000 midnights passed made a
    time_span_us past 2^53, which results then carried (a snapshot's time past it is refused)."""
    with open(tmp_path / "days.csv", "w") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n")
        for day in range(105000):
            f.write("1,23:00:00.000000,allocate failure,0x0,4096,0x1\n"
                    "1,00:00:00.000000,allocate failure,0x0,4096,0x1\n")
    r = subprocess.run([MEMREL, "-q", "trace", "import", "days.csv", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "days.csv", "2^53")
    assert sorted(os.listdir(tmp_path)) == ["days.csv"]


@needs_memrel
@pytest.mark.parametrize("command", ["bench", "ab"])
def test_a_filter_that_backtracks_without_end_is_refused_before_any_run(tmp_path, command):
    """The twenty-eighth pass, c8-filter-regex-hang: `--filter '((...(a*)*...)*$'` held
    memrel_bench in its matcher: bench recorded the backend as timed out after --timeout, exit 3;
    ab, which has no timeout, ran for ever."""
    nested = "(" * 20 + "a*" + ")*" * 20 + "$"
    args = (["bench", "-b", "null", "--quick", "--timeout", "60", "-o", "out"] if command == "bench"
            else ["ab", "-b", "null", "--rounds", "5", "--looks", "1", "--quick", "--out", "out"])
    r = subprocess.run([MEMREL, "-q", *args, "--filter", nested], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    refused(r, "--filter", "did not end within 10 s")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("field", ["library", "name", "environment"])
def test_a_nul_in_a_backend_files_text_is_refused(tmp_path, field):
    """The twenty-ninth pass, c3-backend-library-nul-truncated, c4-backend-env-nul-truncated,
    c7-nul-in-backend-name-cuts-message: JSON's \\u0000 in a backend file's library path made
    dlopen load the path before it, in an environment value made setenv set the part before it
    (exit 0 both), and in a name cut the error line there."""
    backend = json.load(open(os.path.join(ROOT, "benchmarks", "backends",
                                          "pluggable-host-example.json")))
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    backend.update(name="nul-example", library=library)
    if field == "library":
        backend["library"] = library + "\u0000.not-this"
    elif field == "name":
        backend["name"] = "ex\u0000ample"
    else:
        backend["environment"] = {"MEMREL_EXAMPLE_SLOWDOWN_NS": "5\u0000nan"}
    (tmp_path / "be.json").write_text(json.dumps(backend))
    r = subprocess.run([MEMREL, "-q", "run", "-b", "./be.json", "-w", "temp-then-delete", "-o",
                        "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "be.json", field, "NUL")
    assert os.listdir(tmp_path) == ["be.json"]


@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-b", "null", "--include-null", "-w", "temp-then-delete", "-o", "{lib}/libnew.so"],
    ["compare", HOST_RUN, HOST_RUN, "--json", "{lib}/libmemrel_other.so"],
    ["trace", "import", os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv"),
     "-o", "{lib}/memrel_bench"],
])
def test_no_output_takes_a_name_memrel_loads_in_its_library_folder(tmp_path, command):
    """The twenty-ninth pass, c1-new-output-in-memrel-lib-folder,
    c1-trace-import-into-memrel-lib-folder: a new `*.so` beside the binary (where a build without
    the example library has none) was written, exit 0, and the next run loaded it as the
    backend's library ("invalid ELF header")."""
    copy = private_copy(tmp_path)
    lib = copy / "build" / "ci"
    before = sorted(os.listdir(lib))
    r = subprocess.run([str(lib / "memrel"), "-q", *[a.format(lib=lib) for a in command]],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, str(lib), "where memrel loads")
    assert sorted(os.listdir(lib)) == before


@needs_memrel
@pytest.mark.parametrize("command", [["history", "--db", "h.sqlite", "changes", "--markdown",
                                      "h.sqlite-journal"],
                                     ["history", "--db", "h.sqlite", "changes", "--markdown",
                                      "h.sqlite-wal"],
                                     ["report", "--history", "h.sqlite", "--out",
                                      "h.sqlite-journal", HOST_RUN]])
def test_no_output_is_named_where_sqlite_keeps_the_historys_side_files(tmp_path, command):
    """The thirtieth pass, c1-changes-markdown-onto-db-*, c1-report-out-onto-history-journal:
    `history changes --markdown h.sqlite-journal` and `report --history h.sqlite --out
    h.sqlite-journal` wrote there, exit 0, and every later history command refused the
    database."""
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "h.sqlite-", "SQLite keeps")
    assert sorted(os.listdir(tmp_path)) == ["h.sqlite"]
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "list"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


@needs_memrel
@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGKILL])
def test_a_report_part_killed_from_outside_leaves_no_half_written_folder(tmp_path, sig):
    """c8-report-child-segv-leaves-tmp: the report's Python part killed alone (a SIGSEGV in a
    library, a SIGKILL to it) while memrel lived: exit 4 with one line, but the half-drawn
    rep.tmp-PID stayed until the next report into rep. The part names it to memrel as it makes
    it, and memrel removes it once the part has ended without its last word."""
    for attempt in range(3):  # the kill must land while the folder is being drawn
        run = tmp_path / f"attempt{attempt}"
        run.mkdir()
        shutil.copy(HOST_RUN, run / "r.json")
        p = subprocess.Popen([MEMREL, "report", "r.json", "--out", "rep"], cwd=run,
                             stderr=subprocess.PIPE, text=True)
        killed = False
        deadline = time.monotonic() + 60
        while p.poll() is None and time.monotonic() < deadline and not killed:
            drawing = [n for n in os.listdir(run) if n.startswith("rep.tmp-")]
            parts = _children(p.pid)
            if drawing and parts:
                os.kill(parts[0], sig)
                killed = True
            else:
                time.sleep(0.02)
        _, err = p.communicate(timeout=60)
        if not killed:
            continue
        assert p.returncode == 4, err
        assert len(err.strip().splitlines()) == 1, err
        assert signal.Signals(sig).name in err
        assert [n for n in os.listdir(run) if n.startswith("rep")] == [], os.listdir(run)
        return
    pytest.fail("the report ended three times before its folder was seen being drawn")


@needs_memrel
@pytest.mark.parametrize("old,new", [('"bytes":242702', '"bytes":NaN   '),
                                     ('"format":"torch-snapshot"', '"file":"x","file":"y"    ')])
def test_trace_show_refuses_a_header_the_loader_refuses(tmp_path, old, new):
    """c7-trace-show-accepts-non-json-header: a header holding NaN (not JSON) or a key twice was
    refused by `validate` and `run` and printed by `trace show`, exit 0: one file, two verdicts.
    `show` is checked by the loader itself first."""
    source = os.path.join(ROOT, "benchmarks", "workloads",
                          "trace-convnet-varying-batch-and-size.memtrace")
    with open(source, "rb") as f:
        data = f.read()
    assert len(old) == len(new) and data.count(old.encode()) == 1
    bad = tmp_path / "bad.memtrace"
    bad.write_bytes(data.replace(old.encode(), new.encode()))
    validate = subprocess.run([MEMREL, "validate", str(bad)], capture_output=True, text=True,
                              timeout=60)
    show = subprocess.run([MEMREL, "trace", "show", str(bad)], capture_output=True, text=True,
                          timeout=60)
    assert validate.returncode == 2, validate.stderr
    refused(show, "bad.memtrace")
    assert show.stdout == ""


@needs_memrel
def test_a_backend_whose_library_cannot_load_is_not_listed_available(tmp_path):
    """c8-list-says-available-library-cannot-load: a backend file whose library is there but
    needs one that is not: `run -b` refused it, `list` called it available and
    --available-backends printed it, so bench's default set ran it and said it failed. The
    listing checks a backend file's library as run does."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    with open(library, "rb") as f:
        code = f.read()
    assert code.count(b"libm.so.6\x00") >= 1
    (tmp_path / "libex.so").write_bytes(code.replace(b"libm.so.6\x00", b"libq.so.6\x00", 1))
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        backend = json.load(f)
    backend.update(name="ex", library=str(tmp_path / "libex.so"))
    (tmp_path / "backends").mkdir()
    (tmp_path / "backends" / "ex.json").write_text(json.dumps(backend))
    listed = subprocess.run([MEMREL, "--backends-dir", "backends", "list", "--json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert listed.returncode == 0, listed.stderr
    ex = [b for b in json.loads(listed.stdout)["backends"] if b["name"] == "ex"]
    assert len(ex) == 1 and ex[0]["available"] is False, ex
    assert "libq.so.6" in ex[0]["reason"]
    names = subprocess.run([MEMREL, "--backends-dir", "backends", "list", "--available-backends"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert names.returncode == 0 and "ex" not in names.stdout.split(), names.stdout


@needs_memrel
@pytest.mark.parametrize("command", [["bench", "-b", "host-malloc", "--quick", "-o", "out",
                                      "--bench", "./memrel_bench"],
                                     ["ab", "-b", "host-malloc", "--quick", "--out", "out",
                                      "--reference-bench", "./memrel_bench"]])
def test_a_memrel_bench_missing_a_library_is_said_so(tmp_path, command):
    """c8-bench-missing-library-said-not-a-memrel-bench: a memrel_bench whose libbenchmark is
    gone was "not a memrel_bench (asked for its --help, it exited 127 and printed nothing)": it
    is one, the loader said why it could not start, and the missing library was not named."""
    bench = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    with open(bench, "rb") as f:
        code = f.read()
    needed = b"libbenchmark.so.1debian\x00"
    if code.count(needed) < 1:
        pytest.skip("this memrel_bench does not need libbenchmark.so.1debian (not Debian's)")
    copy = tmp_path / "memrel_bench"
    copy.write_bytes(code.replace(needed, b"libbenchmarx.so.1debian\x00", 1))
    copy.chmod(0o755)
    r = subprocess.run([MEMREL] + command, capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "./memrel_bench", "libbenchmarx.so.1debian")
    assert not (tmp_path / "out").exists()


@needs_memrel
def test_a_reader_gone_from_stdout_loses_no_output_file(tmp_path):
    """c8-compare-stdout-pipe-closed-sigpipe-outputs-lost: `compare A B --markdown m.md --junit
    j.xml | true` died of SIGPIPE (exit 141) at its first line, before its files were written.
    The files are written, and the reader that left is no failure: the command's own exit code
    stands, without a line (the fifty-third pass, c9-closed-stdout-pipe-two-rules)."""
    r = subprocess.run(f'"{MEMREL}" compare "{HOST_RUN}" "{HOST_RUN}" --markdown m.md --junit j.xml '
                       '2>err.txt | true; echo "${PIPESTATUS[0]}"', shell=True, executable="/bin/bash",
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.stdout.strip() == "0", (r.stdout, (tmp_path / "err.txt").read_text())
    assert (tmp_path / "err.txt").read_text() == ""
    assert (tmp_path / "m.md").stat().st_size > 0 and (tmp_path / "j.xml").stat().st_size > 0


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "show", "--events", "{trace}"],
                                     ["history", "--db", "h.sqlite", "changes", "--json"]])
def test_a_python_part_with_stdout_closed_says_it_wrote_nothing(tmp_path, command):
    """c9-python-parts-closed-stdout-exit-0: with stdout closed (`>&-`), `trace show` and
    `history changes` printed into nothing and exited 0; memrel's own commands say "cannot write
    to standard output", exit 4. The closed stream is held by /dev/null opened for reading, so
    every write to it fails, the Python part's too."""
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    if command[0] == "history":
        added = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", HOST_RUN],
                               capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert added.returncode == 0, added.stderr
    words = " ".join(f"'{w.replace('{trace}', trace)}'" for w in command)
    r = subprocess.run(f'"{MEMREL}" {words} >&-', shell=True, capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "cannot write to standard output", exit_code=4)


@needs_memrel
def test_trace_show_on_a_full_device_says_one_line(tmp_path):
    """c9-trace-show-events-full-stdout-two-lines: `trace show --events T > /dev/full` said
    "internal error: OSError: No space left on device" and then memrel's own line."""
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    with open("/dev/full", "w") as full:
        r = subprocess.run([MEMREL, "trace", "show", "--events", trace], stdout=full,
                           stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=120)
    refused(r, "cannot write to standard output", exit_code=4)


@needs_memrel
@pytest.mark.parametrize("field,value", [("repetitions", -3), ("repetitions", 4.5),
                                         ("repetitions", "3"), ("repetition_index", 0.0),
                                         ("repetition_index", -1)])
@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_bench_file_twice_is_refused_however_its_repetitions_are_spelled(tmp_path, field,
                                                                           value, command):
    """c4-bench-negative-repetitions-disables-duplicate-check,
    c4-bench-repetition-index-spelling-disables-duplicate-check: every series of a bench file
    twice is refused ("in the file twice?"); with repetitions -3 or an index spelled 0.0 it was
    read as "median of 6", exit 0. Both numbers are whole and in range, as Google Benchmark
    writes them, in both readers."""
    from conftest import HOST_BENCH
    with open(HOST_BENCH) as f:
        doc = json.load(f)
    doubled = []
    for entry in doc["benchmarks"]:
        if field in entry:
            entry[field] = value
        doubled.append(entry)
    doc["benchmarks"] = doubled + [dict(e) for e in doubled]
    bad = tmp_path / "twice.json"
    bad.write_text(json.dumps(doc))
    args = (["report", "--out", "rep", "--bench", str(bad), HOST_RUN] if command == "report"
            else ["compare", HOST_BENCH, str(bad)])
    r = subprocess.run([MEMREL] + args, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "twice.json", field)
    assert not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("levels,code", [(511, 0), (512, 2)])
def test_the_report_reads_json_as_deep_as_the_other_readers(tmp_path, levels, code):
    """c4-report-results-nested-511-internal-error: a results file nested 511 levels (512 with
    its root) passed compare and history add, and report said "internal error: RecursionError",
    exit 4. Both take 512 levels and refuse one more, in the same words."""
    with open(HOST_RUN) as f:
        text = f.read()
    deep = tmp_path / "deep.json"
    deep.write_text(text.replace('"cells": [', '"zz": ' + "[" * levels + "]" * levels +
                                 ', "cells": [', 1))
    compared = subprocess.run([MEMREL, "compare", str(deep), str(deep)], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)
    reported = subprocess.run([MEMREL, "-q", "report", "--out", "rep", str(deep)],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert compared.returncode == code, compared.stderr
    if code == 0:
        assert reported.returncode == 0, reported.stderr
    else:
        refused(reported, "deep.json", "nested deeper than 512 levels")
        refused(compared, "deep.json", "nested deeper than 512 levels")


@needs_memrel
def test_the_report_runs_at_the_smallest_stack_memrel_accepts(tmp_path):
    """c8-report-segfault-at-accepted-stack-limit: under `ulimit -s 128`, which memrel accepts,
    the report was written and then memrel died of SIGSEGV (exit 139, no word): the thread
    copying the part's stderr had 64 KiB on a stack of that size."""
    r = subprocess.run(f'ulimit -s 128 && exec "{MEMREL}" report --out rep "{HOST_RUN}"',
                       shell=True, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert (tmp_path / "rep" / "index.html").exists()


@needs_memrel
def test_cells_run_at_another_capacity_are_not_compared_as_regressions(tmp_path):
    """c4-compare-different-host-capacity-false-regression: fragmentation sizes its blocks in
    fractions of --host-capacity; a run at 512 MiB against one at 1 GiB was 12 byte regressions,
    exit 1. Another capacity is another experiment: an info row, metrics not compared."""
    workload = os.path.join(ROOT, "benchmarks", "workloads", "fragmentation.json")
    for out, capacity in (("base.json", "512MiB"), ("cur.json", "1GiB")):
        r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", workload, "-o", out,
                            "--host-capacity", capacity], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "compare", "base.json", "cur.json"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "another capacity" in r.stdout and "REGRESSION" not in r.stdout


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-q", "-b", "host-malloc", "-w", "{log}", "-o", "r.json"],
                                     ["validate", "{log}"]])
def test_a_tmpdir_that_cannot_take_an_import_is_the_machines_state(tmp_path, command):
    """c9-tmpdir-bad-said-internal-error: with TMPDIR a missing folder, `run -w log.csv` and
    `validate log.csv` said "internal error: cannot import a trace: TMPDIR ...", exit 4, where
    `trace import` says the same state with what to do, as run says it for a cell's files."""
    log = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
    env = dict(os.environ, TMPDIR=str(tmp_path / "missing"))
    r = subprocess.run([MEMREL] + [w.replace("{log}", log) for w in command],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    line = refused(r, "TMPDIR", "set TMPDIR to a folder", exit_code=4)
    assert "internal error" not in line
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_stopped_history_add_leaves_no_new_empty_history(tmp_path):
    """c9-history-add-interrupted-leaves-empty-db: `history --db h.sqlite add d` (h.sqlite not
    there yet) stopped by SIGTERM as soon as h.sqlite appeared said "nothing added" and left a
    new, empty history behind. A history the add made and added nothing to goes again. (A stop
    that lands after the commit leaves a history with runs: no fault; five tries.)"""
    with open(HOST_RUN) as f:
        run = json.load(f)
    (tmp_path / "d").mkdir()
    for i in range(40):
        run["context"]["started"] = f"2026-01-{i % 28 + 1:02d}T{i // 28:02d}:00:00Z"
        (tmp_path / "d" / f"r{i}.json").write_text(json.dumps(run))
    db = tmp_path / "h.sqlite"
    for attempt in range(5):
        for name in ("h.sqlite", "h.sqlite-journal"):
            if (tmp_path / name).exists():
                (tmp_path / name).unlink()
        p = subprocess.Popen([MEMREL, "history", "--db", str(db), "add", "d"], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while not db.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        if p.returncode == 0:
            continue  # it had finished
        assert p.returncode == 128 + signal.SIGTERM, err
        assert "nothing added" in err
        assert not db.exists() and not (tmp_path / "h.sqlite-journal").exists()


@needs_memrel
def test_a_workload_name_that_is_one_files_name_and_anothers_stem_is_refused(tmp_path):
    """c6-w-name-is-stem-and-other-name: in a workloads folder, x.json named "zz" and y.json
    named "x": `list` shows zz and x, and `run -w x` ran zz, exit 0. `-w x` names two workloads
    there: refused, give the file."""
    wd = tmp_path / "wd"
    wd.mkdir()
    for file, source, name in (("x.json", "temp-then-delete", "zz"), ("y.json", "single-large", "x")):
        with open(os.path.join(ROOT, "benchmarks", "workloads", source + ".json")) as f:
            w = json.load(f)
        w["name"] = name
        (wd / file).write_text(json.dumps(w))
    r = subprocess.run([MEMREL, "--workloads-dir", "wd", "run", "-q", "-b", "host-malloc", "-w", "x",
                        "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "'x'", "x.json", "y.json", "give the file")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("together", [True, False])
def test_a_history_keeps_a_trace_and_a_workload_of_one_name_apart(tmp_path, together):
    """c6-history-mixes-trace-and-workload-of-one-name: runs of the JSON workload
    temp-then-delete and of a trace imported under that name went into one series, and `history
    changes` found a +9227.8 % change between them (compare and report refuse the pair). The
    history remembers which kind each cell's workload was and refuses the other."""
    (tmp_path / "log.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                      "1,08:00:00.000001,allocate,0x7f0000000000,4096,0x0\n"
                                      "1,08:00:00.000003,free,0x7f0000000000,4096,0x0\n")
    def memrel(*args):
        r = subprocess.run([MEMREL, "-q"] + list(args), capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
        return r
    assert memrel("trace", "import", "log.csv", "-o", "t.memtrace", "--name",
                  "temp-then-delete").returncode == 0
    assert memrel("run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "r1.json").returncode == 0
    assert memrel("run", "-b", "host-malloc", "-w", "./t.memtrace", "-o", "r2.json").returncode == 0
    if together:
        r = memrel("history", "--db", "h.sqlite", "add", "r1.json", "r2.json")
    else:
        assert memrel("history", "--db", "h.sqlite", "add", "r2.json").returncode == 0
        r = memrel("history", "--db", "h.sqlite", "add", "r1.json")
    refused(r, "host-malloc/temp-then-delete", "two workloads of one name")
    listed = memrel("history", "--db", "h.sqlite", "list")
    assert "temp-then-delete:peak_requested\t2" not in listed.stdout


@needs_memrel
def test_a_stopped_advise_leaves_no_earlier_page_beside_its_new_data(tmp_path):
    """c9-advise-sigterm-mixed-folder: an advise into a folder holding a finished advise,
    stopped while its page was drawn, left its advise.json beside the earlier advise.html and
    frontier: a page contradicting its data. The earlier page goes before the new data comes.
    (A stop that lands before the data or after the page shows nothing: five tries.)"""
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    out = tmp_path / "a"
    for attempt in range(5):
        shutil.rmtree(out, ignore_errors=True)
        first = subprocess.run([MEMREL, "-q", "advise", trace, "-b", "host-malloc", "--out", str(out)],
                               capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert first.returncode == 0, first.stderr
        p = subprocess.Popen([MEMREL, "-q", "advise", trace, "-b", "host-malloc-retain,null",
                              "--out", str(out)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while p.poll() is None and time.monotonic() < deadline:
            try:
                if '"null"' in (out / "advise.json").read_text():
                    break
            except OSError:
                pass
            time.sleep(0.005)
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=120)
        advice = (out / "advise.json").read_text()
        if "host-malloc-retain" not in advice:
            continue  # stopped before the new data
        for page in ("advise.html", "advise-frontier.png", "advise-frontier.svg"):
            if (out / page).exists() and page == "advise.html":
                assert "host-malloc-retain" in (out / page).read_text(), attempt
            elif (out / page).exists():
                assert (out / page).stat().st_mtime >= (out / "advise.json").stat().st_mtime, page


def _cell_of(run_pid, deadline):
    while time.monotonic() < deadline:
        children = _children(run_pid)
        for runner in [run_pid] + children:
            for child in _children(runner) if runner != run_pid else children:
                try:
                    with open(f"/proc/{child}/cmdline", "rb") as f:
                        if b"cell\x00--backend" in f.read():
                            return child
                except OSError:
                    pass
        time.sleep(0.02)
    return None


@needs_memrel
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_cell_stopped_from_outside_stops_the_run_and_is_not_a_crash(tmp_path, sig):
    """c8-cell-sigterm-from-outside-said-sigkill-crash: SIGTERM to a running cell (it SIGKILLs
    its own group) was recorded as the allocator crashing, "killed by signal 9", exit 3, and
    --resume kept it; SIGINT and SIGHUP likewise as crashes. The cell says it was asked to stop;
    the run stops as if asked itself, and --resume runs the cell again."""
    for n in ("a", "b"):
        (tmp_path / f"{n}.json").write_text(json.dumps(
            {"schema": "memrel.workload/1", "name": n,
             "steps": [{"alloc": "x", "bytes": 4096}, {"sleep_ms": 3000}, {"mark": "m"},
                       {"free": "x"}]}))
    command = [MEMREL, "-q", "run", "-b", "host-malloc", "-w", "a.json,b.json", "-o", "r.json"]
    p = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    cell = _cell_of(p.pid, time.monotonic() + 30)
    assert cell is not None
    time.sleep(0.5)
    os.kill(cell, sig)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + sig, err
    assert f"stopped by {signal.Signals(sig).name} from outside" in err
    assert not (tmp_path / "r.json").exists()
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True, cwd=tmp_path,
                             timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    with open(tmp_path / "r.json") as f:
        assert [c["status"] for c in json.load(f)["cells"]] == ["ok", "ok"]


@needs_memrel
@pytest.mark.parametrize("command", [["bench", "-b", "host-malloc", "--quick", "-o", "out"],
                                     ["ab", "-b", "host-malloc", "--quick", "--rounds", "5",
                                      "--looks", "1", "--out", "ab"]])
def test_a_memrel_bench_stopped_from_outside_stops_the_command(tmp_path, command):
    """c8-bench-sigterm-from-outside-exit-3, c8-ab-candidate-sigterm-from-outside-exit-1: a
    memrel_bench sent SIGTERM from outside was the backend's benchmarks failing (bench, exit 3)
    or the candidate's regression (ab, exit 1). memrel ends its own with SIGKILL: a stop
    signal came from outside, and the command stops as if asked itself."""
    p = subprocess.Popen([MEMREL] + command, cwd=tmp_path, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    bench = None
    deadline = time.monotonic() + 60
    while bench is None and p.poll() is None and time.monotonic() < deadline:
        for child in _children(p.pid):
            try:
                with open(f"/proc/{child}/cmdline", "rb") as f:
                    if b"memrel_bench" in f.read():
                        bench = child
            except OSError:
                pass
        time.sleep(0.01)
    assert bench is not None, "no memrel_bench seen"
    os.kill(bench, signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    line = err.strip().splitlines()[-1]
    assert p.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM from outside" in line, err


@needs_memrel
def test_any_run_removes_what_a_killed_run_left_in_tmpdir(tmp_path):
    """c9-run-import-sigkill-leaves-tmp-folder: a run killed outright while importing left its
    memrel-run-XXXXXX folder (traces of the full size) in TMPDIR until a later run that imported
    a trace; a plain run left it. Every run removes such an abandoned folder (no run holds its
    lock)."""
    tmp = tmp_path / "tmp"
    left = tmp / "memrel-run-Ab12Cd"
    left.mkdir(parents=True)
    (left / ".memrel-run-folder").touch()  # a run's marker, made before its folder is named so
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace"),
                left / "trace-1.memtrace")
    r = subprocess.run([MEMREL, "-q", "run", "-b", "null", "--include-null", "-w", "temp-then-delete",
                        "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, TMPDIR=str(tmp)), timeout=120)
    assert r.returncode == 0, r.stderr
    assert not left.exists()


@needs_memrel
@pytest.mark.parametrize("command", [["compare", "{x}", "{x}"], ["merge", "-o", "m.json", "{x}"],
                                     ["report", "--out", "rp", "{x}"]])
@pytest.mark.parametrize("given", ["trace", "verdicts"])
def test_a_file_of_memrels_other_kind_is_said_as_that_kind(tmp_path, command, given):
    """c10-other-kind-said-malformed-or-old: a trace where a results file goes was "malformed JSON
    at byte 1 ... last read: 'M'" (report: "not UTF-8 text"); a gate verdicts file of this very
    memrel "written by another memrel version?". Both are named as what they are."""
    if given == "trace":
        source = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
        shutil.copy(source, tmp_path / "x.json")
        words = ("x.json", "a memrel trace")
    else:
        r = subprocess.run([MEMREL, "-q", "compare", HOST_RUN, HOST_RUN, "--json", "x.json"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert r.returncode == 0, r.stderr
        words = ("x.json", "memrel.gate-verdicts file, not a memrel.results file")
    r = subprocess.run([MEMREL] + [w.replace("{x}", "x.json") for w in command],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, *words)


def test_a_report_is_on_disk_before_it_replaces_the_earlier_one(tmp_path, monkeypatch):
    """c5-report-replace-without-fsync: the report swapped its new folder in and removed the
    earlier one with no fsync at all, where every other writer syncs first: a power cut could
    leave empty files where the earlier report was. Every file and folder of the new one is
    synced before the swap, and the parent after it."""
    from test_hostile_inputs import scripts_module
    folder = scripts_module("memrel_report.folder")
    synced = []
    real_fsync = os.fsync
    swapped = []

    def fsync(fd):
        synced.append((os.readlink(f"/proc/self/fd/{fd}"), bool(swapped)))
        real_fsync(fd)

    real_swap = folder._swap

    def swap(*args):
        real_swap(*args)
        swapped.append(True)

    monkeypatch.setattr(folder.os, "fsync", fsync)
    monkeypatch.setattr(folder, "_swap", swap)

    def fill(tmp):
        os.makedirs(os.path.join(tmp, "plots"))
        for name in ("index.html", os.path.join("plots", "a.png")):
            with open(os.path.join(tmp, name), "w") as f:
                f.write("x")

    out = tmp_path / "rep"
    folder.write_atomically(str(out), fill)
    before = {os.path.relpath(p, str(out) + ".tmp-" + str(os.getpid()))
              for p, after in synced if not after}
    assert {"index.html", os.path.join("plots", "a.png"), "plots", "."} <= before, synced
    assert (str(tmp_path), True) in synced


@needs_memrel
@pytest.mark.parametrize("case", ["workload-key", "bench-name", "grid-setting"])
def test_a_nul_in_a_name_does_not_cut_the_error_line(tmp_path, case):
    """c7-validate-nul-field-name-cuts-error, c7-gbench-nul-name-cuts-error,
    c7-advise-grid-nul-setting-cuts-error (the thirty-second pass): a key or name holding NUL
    (JSON's \\u0000) cut the one line there ("memrel: w1.json: ste"), the reason lost: what() is
    a C string. memrel's errors write the NUL as \\u0000."""
    if case == "workload-key":
        (tmp_path / "w.json").write_text('{"schema":"memrel.workload/1","name":"w","ste\\u0000ps":[]}')
        args, words = ["validate", "w.json"], ["ste\\u0000ps", "unexpected field"]
    elif case == "bench-name":
        from conftest import HOST_BENCH
        with open(HOST_BENCH) as f:
            doc = json.load(f)
        doc["benchmarks"][0]["name"] = "wa\u0000rm"
        doc["benchmarks"][0]["iterations"] = 0
        (tmp_path / "b.json").write_text(json.dumps(doc))
        args, words = ["compare", HOST_BENCH, "b.json"], ["wa\\u0000rm", "iterations 0 is impossible"]
    else:
        (tmp_path / "g.json").write_text(json.dumps(
            {"schema": "memrel.advise-grid/1",
             "configurations": ["host-malloc:trim_thr\u0000eshold=0"]}))
        trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
        args, words = ["advise", trace, "--grid", "g.json", "--out", "a"], ["trim_thr\\u0000eshold", "unknown setting"]
    r = subprocess.run([MEMREL] + args, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, *words)


@needs_memrel
@pytest.mark.parametrize("command", [["report", "--out", "{data}/rep", HOST_RUN],
                                     ["history", "--db", "h.sqlite", "changes", "--markdown",
                                      "{data}/x.md"]])
def test_no_python_writer_puts_an_output_in_memrels_own_data(tmp_path, command):
    """c1-report-changes-into-memrel-own-folders (the thirty-second pass): merge, history --db,
    advise, bench, ab and compare refuse an output in memrel's own data folder; report --out and
    history changes --markdown wrote there. memrel names the folder to its Python parts."""
    copy = private_copy(tmp_path)
    data = copy / "benchmarks"
    binary = str(copy / "build" / "ci" / "memrel")
    if command[0] == "history":
        added = subprocess.run([binary, "-q", "history", "--db", "h.sqlite", "add", HOST_RUN],
                               capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert added.returncode == 0, added.stderr
    r = subprocess.run([binary] + [w.replace("{data}", str(data)) for w in command],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, str(data), "memrel's own code or data")
    assert not (data / "rep").exists() and not (data / "x.md").exists()


@needs_memrel
def test_a_stopped_advise_leaves_no_half_chart_or_page(tmp_path):
    """c9-advise-sigterm-half-svg (the thirty-second pass): SIGTERM to advise while its page was
    drawn left a half advise-frontier.svg (no </svg>) or an advise.html.tmp-PID: the page's part
    ended on the signal without its cleanup. It unwinds now, removing both. (Stops at several
    moments; one that lands before or after the page shows nothing.)"""
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    for attempt in range(8):
        out = tmp_path / f"a{attempt}"
        p = subprocess.Popen([MEMREL, "-q", "advise", trace, "-b", "null", "--out", str(out),
                              "--trace-scale", "1/1024"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while p.poll() is None and time.monotonic() < deadline:
            names = os.listdir(out) if out.exists() else []
            if "advise-frontier.svg" in names or [n for n in names if ".tmp-" in n]:
                break
            time.sleep(0.001)
        time.sleep(0.001 * (attempt % 5))
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=120)
        names = os.listdir(out) if out.exists() else []
        assert not [n for n in names if ".tmp-" in n], names
        svg = out / "advise-frontier.svg"
        if svg.exists():
            assert svg.read_text().rstrip().endswith("</svg>"), (attempt, p.returncode)


@needs_memrel
def test_ab_with_a_reference_that_wrote_no_benchmark_compares_nothing_and_says_so(tmp_path):
    """c8-ab-empty-reference-passes (the thirty-second pass): a --reference-bench that answers
    as memrel_bench but writes an empty benchmark list every round: "0 compared, 1 new: PASS",
    exit 0. Nothing to compare against is exit 4, as for a reference that cannot run. (Since the
    forty-eighth pass a file of no benchmark is the reference failing, said so, not kept.)"""
    bench = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    wrapper = tmp_path / "empty.sh"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *--help*|*--benchmark_list_tests*) exec "{bench}" "$@";; esac\n'
        'for a in "$@"; do case $a in --benchmark_out=*) '
        "echo '{\"context\":{},\"benchmarks\":[]}' > \"${a#--benchmark_out=}\";; esac; done\n"
        "exit 0\n")
    wrapper.chmod(0o755)
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "null", "--quick", "--filter", "^pair/null/warm/512/",
                        "--reference-bench", str(wrapper), "--rounds", "5", "--looks", "1",
                        "--out", "ab", "--json", "v.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, "the reference null failed in round 1", "holds no benchmark", exit_code=4)
    assert not (tmp_path / "v.json").exists()


@needs_memrel
def test_a_snapshot_of_one_segment_entry_repeated_stays_within_the_importers_bound(tmp_path):
    """c7-pickle-shared-entry-expands-memory (the thirty-second pass): a 24 MB snapshot whose
    device trace is one segment_alloc dict referenced 12 million times (memo GET) took 4.45 GiB,
    ~190 bytes per pickle byte, where the importer keeps to 48 per byte (at least 2 GiB): each
    segment change was a tuple, and the curve a list of them. Kept in 8-byte arrays now, the
    points read where the envelope needs them. (3 million here: the old way took ~1.1 GiB.)"""
    import struct
    n = 3_000_000
    out = bytearray(b"\x80\x04}(")

    def short(text):
        out.extend(b"\x8c" + bytes([len(text)]) + text.encode())

    short("segments")
    out.extend(b"]")
    short("device_traces")
    out.extend(b"]]}(")
    short("action")
    short("segment_alloc")
    short("addr")
    out.extend(b"J" + struct.pack("<i", 65536))
    short("size")
    out.extend(b"J" + struct.pack("<i", 4096))
    short("stream")
    out.extend(b"K\x00u\x94a")
    for i in range(0, n - 1, 1000):
        out.extend(b"(" + b"h\x00" * min(1000, n - 1 - i) + b"e")
    out.extend(b"au.")
    (tmp_path / "rep.pickle").write_bytes(bytes(out))
    measure = ("import resource, subprocess, sys\n"
               "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "sys.stderr.write(r.stderr)\n")
    r = subprocess.run([sys.executable, "-c", measure, MEMREL, "trace", "import", "rep.pickle", "-o",
                        "t.memtrace"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    code, peak_kib = (int(w) for w in r.stdout.split())
    assert code == 0, r.stderr
    assert peak_kib * 1024 < 48 * len(out) + (200 << 20), (peak_kib, len(out))


@needs_memrel
@pytest.mark.parametrize("source", ["rmm", "snapshot"])
def test_a_double_free_is_refused_not_taken_for_a_block_held_from_the_start(tmp_path, source):
    """c7-rmm-double-free-invents-block (the thirty-second pass): a log that frees a pointer
    twice was imported with a block "allocated before logging began" for the second free, a
    block the program never held (peak 8192 for one 4096 block). A second free of a pointer
    freed in the trace and not allocated since is a double free: refused, naming both places."""
    if source == "rmm":
        (tmp_path / "in.csv").write_text(
            "Thread,Time,Action,Pointer,Size,Stream\n"
            "1,12:00:00.000001,allocate,0x7f0000000000,4096,0x0\n"
            "1,12:00:00.000002,free,0x7f0000000000,4096,0x0\n"
            "1,12:00:00.000003,free,0x7f0000000000,4096,0x0\n")
        name, words = "in.csv", ["line 4", "freed already at line 3", "double free"]
    else:
        import pickle
        entry = lambda action: {"action": action, "addr": 0x7f0000000000, "size": 4096, "stream": 0}
        trace = [entry("alloc"), entry("free_requested"), entry("free_completed"),
                 entry("free_requested"), entry("free_completed")]
        with open(tmp_path / "in.pickle", "wb") as f:
            pickle.dump({"segments": [], "device_traces": [trace]}, f, protocol=4)
        name, words = "in.pickle", ["device_traces[0][3]", "freed already at device_traces[0][2]"]
    r = subprocess.run([MEMREL, "trace", "import", name, "-o", "t.memtrace"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, *words)
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
def test_a_journal_of_another_machine_is_not_resumed_here(tmp_path):
    """c5-resume-on-another-machine-mixes-cells (the thirty-second pass): a journal whose context
    says its cells ran on another host with an H200 was resumed here, exit 0, and every cell was
    labelled with this machine's context. The machine is part of the run."""
    command = [MEMREL, "-q", "run", "-b", "null,host-malloc", "--include-null", "-w",
               "temp-then-delete,single-large", "-o", "r.json"]
    env = dict(os.environ, MEMREL_INJECT_FAULT="hang",
               MEMREL_INJECT_FAULT_CELL="host-malloc/single-large")
    p = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    journal = tmp_path / "r.json.journal"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not journal.exists() or
                                           len(journal.read_text().splitlines()) < 3):
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    header["context"]["fingerprint"].update(host="node-17", gpu_model="NVIDIA H200")
    journal.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    r = subprocess.run(command + ["--resume"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "r.json.journal", "another machine", "host")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("pointer", ["(nil)", "0x0", ""])
def test_an_rmm_free_of_null_is_refused(tmp_path, pointer):
    """c7-rmm-free-of-null-invents-block (the thirty-third pass): `free,(nil),4096` imported as a
    4096-byte block held from the start, exit 0; no allocation returns null (an allocate of null
    is refused already)."""
    (tmp_path / "l.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    f"1,12:00:00.000001,free,{pointer},4096,0x0\n")
    r = subprocess.run([MEMREL, "trace", "import", "l.csv", "-o", "t.memtrace"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, "line 2", "free of a null pointer")


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "{log}", "-o", "t.memtrace"],
                                     ["run", "-q", "-b", "host-malloc", "-w", "{log}", "-o", "r.json"]])
def test_a_wrapper_that_changes_a_parts_success_to_exit_2_is_the_interpreters_failure(tmp_path,
                                                                                      command):
    """c8-python-wrapper-exit2-* (the thirty-third pass): a MEMREL_PYTHON wrapper running the real
    Python, which succeeded, then exiting 2: `trace import` exit 2 with no word (the trace
    written), `run -w` an empty "memrel: " line. Exit 2 says the input was unusable; a code that
    is not the one memrel's code ended with is the interpreter's failure, exit 4, said."""
    wrapper = tmp_path / "py"
    wrapper.write_text(f'#!/bin/sh\n"{sys.executable}" "$@"\nexit 2\n')
    wrapper.chmod(0o755)
    log = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
    r = subprocess.run([MEMREL] + [w.replace("{log}", log) for w in command], capture_output=True,
                       text=True, cwd=tmp_path, env=dict(os.environ, MEMREL_PYTHON=str(wrapper)),
                       timeout=300)
    refused(r, "exited 2, but memrel's code ended with 0", exit_code=4)


@needs_memrel
def test_a_zygote_without_its_socket_says_so(tmp_path):
    """c9-cell-zygote-silent-exit0 (the thirty-third pass): `memrel cell --zygote` with
    descriptor 3 not open ended at once, exit 0, silent."""
    r = subprocess.run(f'"{MEMREL}" cell --backend host-malloc --zygote 3>&-', shell=True,
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    refused(r, "--zygote", "descriptor 3 is not open")


@needs_memrel
def test_a_backend_name_two_files_hold_is_listed_for_neither(tmp_path):
    """c6-list-dup-backend-file-available (the thirty-third pass): two backend files named
    "dupe": `list --available-backends` printed it and `list --json` called the first valid and
    available, while `run -b dupe` and bench (whose default set is that list) refused it."""
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        backend = json.load(f)
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    (tmp_path / "be").mkdir()
    for name in ("a", "b"):
        (tmp_path / "be" / f"{name}.json").write_text(json.dumps(dict(backend, name="dupe",
                                                                       library=library)))
    names = subprocess.run([MEMREL, "--backends-dir", "be", "list", "--available-backends"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert names.returncode == 0 and "dupe" not in names.stdout.split(), names.stdout
    listed = subprocess.run([MEMREL, "--backends-dir", "be", "list", "--json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    dupes = [b for b in json.loads(listed.stdout)["backends"] if b["name"] in ("dupe", "a", "b")]
    assert len(dupes) == 2 and not any(b["valid"] for b in dupes), dupes
