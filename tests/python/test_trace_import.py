"""The trace importer (scripts/memrel_trace), run as `memrel trace import` runs it: the events a
snapshot and an RMM log become, exactly; hostile and broken inputs refused with exit 2, one line
naming the file and the entry, and nothing written or run."""

import os
import pickle
import random
import subprocess
import sys

import pytest

import trace_samples as samples
from conftest import ROOT, SCRIPTS

sys.path.insert(0, SCRIPTS)
from memrel_trace import builder, trace_file  # noqa: E402

OPS = {1: "alloc", 2: "free"}


def run_import(*args):
    env = dict(os.environ, PYTHONPATH=SCRIPTS)
    return subprocess.run([sys.executable, "-m", "memrel_trace", "import", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def imported(source, tmp_path, *options):
    out = tmp_path / "out.memtrace"
    r = run_import(source, "-o", out, *options)
    assert r.returncode == 0, r.stderr
    header, records = trace_file.read(out)
    return header, [(OPS[op], block, size) for op, block, size in records]


def refused(r, out, *words):
    """Exit 2, one line on stderr with every word, no output file."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert not os.path.exists(out)
    return lines[0]


def test_a_snapshot_becomes_its_requests_by_the_replay_rules(tmp_path):
    source = samples.write_snapshot(tmp_path / "snap.pickle")
    header, events = imported(source, tmp_path)
    assert events == samples.SNAPSHOT_EVENTS
    assert header["schema"] == "memrel.trace/1"
    assert header["name"] == "snap" and header["device"] == 0
    assert header["counts"] == {"events": 12, "allocs": 6, "frees": 6, "blocks": 6,
                                "allocated_at_start": 2, "freed_at_end": 2, "marks": 2}
    assert header["marks"] == samples.SNAPSHOT_MARKS
    assert (header["peak_requested_bytes"], header["peak_requested_event"]) == samples.SNAPSHOT_PEAK
    reserved = header["recorded_reserved"]
    assert reserved["points"] == samples.SNAPSHOT_RESERVED
    assert reserved["peak_bytes"] == 42 * samples.MiB
    assert header["source"]["format"] == "torch-snapshot" and header["source"]["file"] == "snap.pickle"
    provenance = header["provenance"]
    assert provenance["devices_in_source"] == 2 and provenance["source_entries"] == 14
    assert provenance["streams"] == [0, 7] and provenance["time_span_us"] == 13
    assert provenance["allocator_settings"]["max_split_size"] == -1


def test_device_picks_the_trace_of_one_device(tmp_path):
    source = samples.write_snapshot(tmp_path / "snap.pickle")
    header, events = imported(source, tmp_path, "--device", "1", "--name", "gpu1")
    assert events == samples.DEVICE_1_EVENTS
    assert header["device"] == 1 and header["name"] == "gpu1"
    assert header["recorded_reserved"]["final_bytes"] == 2 * samples.MiB  # device 1's segment


def test_a_device_the_snapshot_lacks_is_refused(tmp_path):
    source = samples.write_snapshot(tmp_path / "snap.pickle")
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out, "--device", "2"), out, "snap.pickle: --device: 2:",
            "traces for 2 device(s)")


def test_an_rmm_log_becomes_its_requests_across_midnight(tmp_path):
    source = tmp_path / "rmm.csv"
    source.write_text(samples.RMM_LOG)
    header, events = imported(source, tmp_path)
    assert events == samples.RMM_EVENTS
    assert header["marks"] == samples.RMM_MARKS
    assert header["provenance"]["time_span_us"] == samples.RMM_SPAN_US
    assert header["provenance"]["streams"] == [0, 0x7F00AA]
    assert header["source"]["format"] == "rmm-log"
    assert header["recorded_reserved"] is None
    assert (header["peak_requested_bytes"], header["peak_requested_event"]) == (5120, 2)


# What RMM itself writes (docs/inputs.md, "The importer's inputs"): thread 2 took its time
# (00.000900) before thread 1 (00.001000) but got the file sink's mutex second; then the local
# clock falls back an hour (the end of summer time). Accepted, in line order, no day added, and
# a mark is never before the first row.
RMM_LOG_BACKWARDS = """Thread,Time,Action,Pointer,Size,Stream
1,02:59:59.001000,allocate,0x1000,4096,0x0
2,02:59:59.000900,allocate,0x2000,8192,0x0
2,02:59:59.000800,allocate failure,(nil),65536,0x0
1,02:00:00.000100,free,0x1000,4096,0x0
2,02:00:00.000200,free,0x2000,8192,0x0
"""


def test_an_rmm_log_whose_time_goes_back_is_imported_in_line_order(tmp_path):
    source = tmp_path / "rmm.csv"
    source.write_text(RMM_LOG_BACKWARDS)
    header, events = imported(source, tmp_path)
    assert events == [("alloc", 0, 4096), ("alloc", 1, 8192), ("free", 0, 4096), ("free", 1, 8192)]
    assert header["marks"] == [{"event": 2, "label": "allocate-failure", "time_us": 0, "bytes": 65536}]
    # An hour back, not midnight: no day is added, and the span, from the first row's time to
    # the last's, is not negative.
    assert header["provenance"]["time_span_us"] == 0


class _System:
    """Unpickling this calls os.system: what a hostile 'snapshot' would do."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class _Eval:
    def __reduce__(self):
        return (eval, ("__import__('os').system('touch MARKER')",))


@pytest.mark.parametrize("hostile", [
    pickle.dumps({"device_traces": [[_System("touch MARKER")]]}, protocol=4),
    pickle.dumps(_System("touch MARKER"), protocol=0),
    pickle.dumps({"segments": [_Eval()], "device_traces": [[]]}, protocol=2),
    b"cos\nsystem\n(S'touch MARKER'\ntR.",  # by hand, protocol 0: GLOBAL os.system, REDUCE
], ids=["reduce-os-system", "protocol-0", "eval", "handwritten-global"])
def test_a_pickle_that_names_a_global_is_refused_and_nothing_runs(tmp_path, hostile):
    """Each would create MARKER in the folder it runs in, were anything in it run."""
    source = tmp_path / "hostile.pickle"
    source.write_bytes(hostile)
    out = tmp_path / "out.memtrace"
    r = subprocess.run([sys.executable, "-m", "memrel_trace", "import", str(source), "-o", str(out)],
                       capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=SCRIPTS), timeout=60)
    line = refused(r, out, "hostile.pickle: refused: the pickle references the global",
                   "nothing was imported or run")
    assert "system" in line or "eval" in line
    assert not (tmp_path / "MARKER").exists()


def test_a_truncated_pickle_is_refused(tmp_path):
    whole = open(samples.write_snapshot(tmp_path / "whole.pickle"), "rb").read()
    source = tmp_path / "cut.pickle"
    source.write_bytes(whole[:len(whole) // 2])
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out, "cut.pickle: truncated or malformed pickle")


@pytest.mark.parametrize("entry,where,what", [
    ({"action": "x", "addr": 1, "size": 1}, "device_traces[0][1]", 'unknown action "x"'),
    ({"action": "alloc", "addr": 1, "size": 1 << 49}, "device_traces[0][1]", "'size' = 562949953421312 is out of range"),
    ({"action": "alloc", "addr": 1, "size": -4}, "device_traces[0][1]", "'size' = -4 is out of range"),
    ({"action": "alloc", "addr": "0x10", "size": 4}, "device_traces[0][1]", "'addr' must be an integer"),
    ({"action": "free_completed", "size": 4}, "device_traces[0][1]", "'addr' must be an integer, got None"),
    ({"action": "alloc", "addr": 0x7E0000000000, "size": 4}, "device_traces[0][1]",
     "alloc at 0x7e0000000000, which is live (allocated at device_traces[0][0])"),
    ("not a dict", "device_traces[0][1]", "an entry must be a dict"),
    ([{"action": "free_requested", "addr": 0x7E0000000000, "size": 8}] * 2, "device_traces[0][2]",
     "free_requested of 0x7e0000000000 twice (first at device_traces[0][1])"),
])
def test_a_bad_snapshot_entry_is_named(tmp_path, entry, where, what):
    snap = samples.snapshot()
    snap["device_traces"][0] = [{"action": "alloc", "addr": 0x7E0000000000, "size": 8}] + \
        (entry if isinstance(entry, list) else [entry])
    source = samples.write_snapshot(tmp_path / "bad.pickle", snap)
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out, f"bad.pickle: {where}: {what}")


HUGE = 10 ** 5000  # str() of it raises ValueError: more than 4300 digits
ALLOC = {"action": "alloc", "addr": 1, "size": 4, "stream": 0, "time_us": 5}


@pytest.mark.parametrize("entry,key,range_", [
    (dict(ALLOC, addr=HUGE), "addr", "(0 to 18446744073709551615)"),
    (dict(ALLOC, addr=-HUGE), "addr", "(0 to 18446744073709551615)"),
    (dict(ALLOC, action="free_completed", addr=HUGE), "addr", "(0 to"),
    (dict(ALLOC, size=HUGE), "size", "(1 to"),
    (dict(ALLOC, stream=HUGE), "stream", "(-9223372036854775808 to 18446744073709551615)"),
    (dict(ALLOC, time_us=HUGE), "time_us", "(0 to 9007199254740992)"),
    ({"action": "oom", "size": HUGE, "time_us": 6}, "size", "(0 to"),
    ({"action": "oom", "size": 4, "time_us": HUGE}, "time_us", "(0 to 9007199254740992)"),
    ({"action": "oom", "size": 4, "device_free": HUGE}, "device_free", "(0 to"),
    ({"action": "segment_alloc", "size": HUGE}, "size", "(0 to"),
])
def test_an_integer_of_thousands_of_digits_is_named_by_its_bits(tmp_path, entry, key, range_):
    """i16, i17 (fifth adversarial pass): exit 4 "Exceeds the limit (4300 digits) for integer
    string conversion"; every integer is range-checked before any becomes text."""
    snap = samples.snapshot()
    snap["device_traces"][0] = [dict(ALLOC, addr=0x7E0000000000), entry]
    source = samples.write_snapshot(tmp_path / "bad.pickle", snap)
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out, f"bad.pickle: device_traces[0][1]: '{key}' = an "
            f"integer of {HUGE.bit_length()} bits is out of range {range_}")


def test_a_stream_beyond_64_bits_is_refused(tmp_path):
    """It went into the header's JSON, which no 64-bit reader holds."""
    snap = samples.snapshot()
    snap["device_traces"][0] = [dict(ALLOC, stream=1 << 64)]
    source = samples.write_snapshot(tmp_path / "bad.pickle", snap)
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out,
            "bad.pickle: device_traces[0][0]: 'stream' = 18446744073709551616 is out of range")


def test_segments_integers_of_thousands_of_digits_are_named(tmp_path):
    snap = samples.snapshot()
    snap["segments"] = [{"device": 0, "address": 0, "total_size": 8,
                         "blocks": [{"size": HUGE, "state": "active_allocated"}]}]
    source = samples.write_snapshot(tmp_path / "bad.pickle", snap)
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out, "bad.pickle: segments[0].blocks[0]: 'size' = an "
            "integer of")


@pytest.mark.parametrize("row,what", [
    ("1,00:00:01.0,allocate,0x10,5", "line 3: expected 6 fields (Thread,Time,Action,Pointer,Size,Stream), got 5"),
    ("1,00:00:01.0,reallocate,0x10,5,0", 'line 3: unknown action "reallocate"'),
    ("1,00:00:01.0,allocate,0x10,0,0", "line 3: Size 0 is out of range"),
    ("1,00:00:01.0,allocate,0x10,-3,0", "line 3: Size \"-3\" is not a whole number"),
    ("1,noon,allocate,0x10,5,0", 'line 3: Time "noon" is not HH:MM:SS.microseconds'),
    ("1,00:00:01.0,allocate,0xZZ,5,0", 'line 3: Pointer "0xZZ" or Stream "0" is not hexadecimal'),
    ("1,00:00:01.0,allocate,0x1,5,0", "line 3: allocate of 0x1, which is live (allocated at line 2)"),
    ("1,00:00:01.0,free,0x1,6,0", "line 3: free of 0x1 with Size 6, allocated with Size 4 at line 2"),
])
def test_a_bad_log_row_is_named(tmp_path, row, what):
    source = tmp_path / "bad.csv"
    source.write_text(f"Thread,Time,Action,Pointer,Size,Stream\n1,00:00:00.5,allocate,0x1,4,0\n{row}\n")
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out, f"bad.csv: {what}")


def test_a_file_of_neither_kind_is_refused(tmp_path):
    source = tmp_path / "notes.txt"
    source.write_text("hello\n")
    out = tmp_path / "out.memtrace"
    refused(run_import(source, "-o", out), out, "notes.txt: neither a PyTorch snapshot pickle nor an RMM log")


def test_a_failed_import_leaves_the_previous_trace_untouched(tmp_path):
    out = tmp_path / "out.memtrace"
    out.write_bytes(b"previous trace")
    source = tmp_path / "bad.csv"
    source.write_text("Thread,Time,Action,Pointer,Size,Stream\n1,00:00:00.1,allocate\n")
    r = run_import(source, "-o", out)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert out.read_bytes() == b"previous trace"
    assert sorted(os.listdir(tmp_path)) == ["bad.csv", "out.memtrace"]  # no temporary left


def test_a_free_put_back_keeps_its_place_among_the_marks():
    """free_requested at place 1, a mark, then a new alloc at the same address: the free goes
    before the mark (it was requested first)."""
    b = builder.TraceBuilder()
    first = b.alloc(10)
    b.mark("before", 0)
    b.free_at(first, 1, 1)  # requested after 1 event, at entry 1
    b.mark("after", 2)
    second = b.alloc(20)
    records, facts = b.finish([second])
    assert [m["event"] for m in facts["marks"]] == [1, 2]
    assert facts["counts"]["events"] == 4
    assert (facts["peak_requested_bytes"], facts["peak_requested_event"]) == (20, 3)


def test_the_recorded_curve_is_subsampled_keeping_its_peak():
    b = builder.TraceBuilder()
    for i in range(5000):
        b.alloc(1)
        b.reserved_change(1000 if i != 3333 else 10**9, i)
        b.reserved_change(-1000 if i != 3333 else -10**9, i)
    _, facts = b.finish(list(range(5000)), final_reserved=0)
    curve = facts["recorded_reserved"]
    assert len(curve["points"]) <= builder.CURVE_POINTS
    assert curve["peak_bytes"] == 10**9 and max(p[1] for p in curve["points"]) == 10**9
    assert [3334, 10**9] in curve["points"]


@pytest.mark.skipif(builder._numpy() is None, reason="numpy not installed: only the pure-Python path exists")
def test_numpy_and_pure_python_write_the_same_records():
    rng = random.Random(3)
    sizes = [rng.choice([1, 512, 1 << 20, 1 << 40]) for _ in range(3000)]
    events, live = [], []
    for block in range(len(sizes)):
        events.append(block)
        live.append(block)
        if rng.random() < 0.6:
            events.append(~live.pop(rng.randrange(len(live))))
    assert builder._columns_numpy(builder._numpy(), events, sizes) == \
        builder._columns_python(events, sizes)


def test_the_committed_rmm_log_replays_the_requests_of_the_trace_it_logged(tmp_path):
    """benchmarks/trace-sources/rmm-pool-convnet.csv was written by RMM's own
    logging_resource_adaptor on the H200 while rmm-pool replayed the committed convnet trace
    (scripts/gpu-check, stage traces): imported, it must give that trace's requests back, size for
    size and in order, so both importers and the replay agree on what the program asked for."""
    workloads = os.path.join(ROOT, "benchmarks", "workloads")
    header, records = imported(os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv"),
                               tmp_path)
    original_header, original = trace_file.read(
        os.path.join(workloads, "trace-convnet-varying-batch-and-size.memtrace"))
    assert header["source"]["format"] == "rmm-log"
    assert header["counts"]["events"] == original_header["counts"]["events"] == 2894
    assert header["peak_requested_bytes"] == original_header["peak_requested_bytes"]
    sizes = [size for op, _, size in records if op == "alloc"]
    assert sizes == [size for op, _, size in original if OPS[op] == "alloc"]


def test_show_into_a_reader_that_stops_early_is_no_error():
    """`memrel trace show T --events | head`: the reader closes the pipe; no traceback, no
    internal error, exit 0 (pipefail would otherwise fail the line)."""
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    env = dict(os.environ, PYTHONPATH=SCRIPTS)
    r = subprocess.run(["bash", "-o", "pipefail", "-c",
                        f'"{sys.executable}" -m memrel_trace show "{trace}" --events | head -3'],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.splitlines() == ["{", ' "schema": "memrel.trace/1",', ' "name": '
                                     '"trace-transformer-varying-length",']
