"""What the sixteenth adversarial pass of issue 23 left open and the seventeenth found
(docs/inputs.md, "Seventeenth pass"): each test fails on the code before its fix."""

import json
import math
import os
import pickle
import shutil
import struct
import subprocess
import sys

import pytest

from conftest import ROOT, SCRIPTS, host_subset
from test_hostile_inputs import (MEMREL, RMM_LOG, backend_file_beside, memrel, memrel_bench_binary,
                                 needs_bench, needs_memrel, refused)
from test_hostile_inputs_fifteenth_pass import (interpreter_that_answers_the_probe,
                                                run_with_interpreter, said_it_ran_nothing_of_memrels)

HASH_MODULUS = 2 ** 61 - 1


def dict_pickle(keys, protocol=4):
    """A snapshot-shaped pickle whose "segments" dict holds KEYS, each mapped to 0."""
    return pickle.dumps({"segments": dict.fromkeys(keys, 0), "device_traces": []},
                        protocol=protocol)


def tuples_that_share_one_hash(count):
    """(a, b) pairs of small integers with one tuple hash: for each a, the b that brings the
    xxHash-style accumulator of CPython's tuplehash to one value (kept when b is below the modulus,
    where an int's hash is itself)."""
    mask, prime1, prime2, prime5 = (1 << 64) - 1, 11400714785074694791, 14029467366897019727, \
        2870177450012600261

    def after_one_lane(lane):
        acc = (prime5 + lane * prime2) & mask
        return (((acc << 31) | (acc >> 33)) & mask) * prime1 & mask

    inverse = pow(prime2, -1, 1 << 64)
    pairs, a = [], 1
    while len(pairs) < count:
        b = ((12345 - after_one_lane(a)) * inverse) & mask
        if b < HASH_MODULUS:
            pairs.append((a, b))
        a += 1
    return pairs


COLLIDING = {
    "ints-k-times-the-modulus": lambda: dict_pickle(k * HASH_MODULUS for k in range(1, 6001)),
    "negative-ints": lambda: dict_pickle(-k * HASH_MODULUS for k in range(1, 6001)),
    "ints-as-text-protocol-0": lambda: dict_pickle((k * HASH_MODULUS for k in range(1, 6001)),
                                                   protocol=0),
    "tuples-of-small-ints": lambda: dict_pickle(tuples_that_share_one_hash(6000)),
}


@needs_memrel
@pytest.mark.parametrize("kind", sorted(COLLIDING))
def test_dict_keys_whose_hashes_collide_are_refused_before_the_dict_is_built(tmp_path, kind):
    """c7-pk-dict-hash-collision-quadratic (sixteenth pass): keys k * (2^61 - 1) all hash to 0, so
    each insert probes past every earlier one: 80,000 of them (1.1 MB) took 42 s in the C
    unpickler. Such keys now take the careful path, which counts each key's collisions."""
    pairs = tuples_that_share_one_hash(3)
    assert len({hash(p) for p in pairs}) == 1, "the tuples meant to collide do not"
    (tmp_path / "s.pickle").write_bytes(COLLIDING[kind]())
    line = refused(memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path,
                          timeout=300), "s.pickle", "hashes collide")
    assert "steps" in line
    assert os.listdir(tmp_path) == ["s.pickle"]


def scan():
    sys.path.insert(0, SCRIPTS)
    try:
        from memrel_trace import pickle_scan
    finally:
        sys.path.pop(0)
    return pickle_scan


@pytest.mark.parametrize("value, careful", [(HASH_MODULUS - 1, False), (HASH_MODULUS, True),
                                            (-HASH_MODULUS + 1, False), (-HASH_MODULUS, True),
                                            (1 << 63, True), (10 ** 30, True), (2 ** 53, False)])
@pytest.mark.parametrize("protocol", range(0, 6))
def test_the_scan_sends_integers_whose_hash_others_can_share_to_the_careful_path(value, careful,
                                                                                 protocol):
    """Below 2^61 - 1 an int's hash is itself, unique; from there on keys can share one."""
    data = pickle.dumps({"segments": [value], "x": "y" * 40}, protocol=protocol)
    assert scan().hashes_something(data) is careful


@pytest.mark.parametrize("protocol", range(0, 6))
def test_the_scan_sends_a_nan_to_the_careful_path_where_every_nan_hashes_alike(protocol):
    """Before Python 3.10 every NaN hashes to 0 and equals nothing (100,000 NaN keys: quadratic
    as the ints); from 3.10 on a NaN hashes by its identity and the fast path keeps it."""
    data = pickle.dumps({"segments": [math.nan, 1.5], "x": "y"}, protocol=protocol)
    assert scan().hashes_something(data) is (sys.version_info < (3, 10))
    assert scan().hashes_something(pickle.dumps({"s": [1.5, -0.0, math.inf]},
                                                protocol=protocol)) is False


OLD_PYTHON = os.path.expanduser("~/.pyenv/versions/3.9.18/bin/python3.9")


@needs_memrel
@pytest.mark.skipif(not os.access(OLD_PYTHON, os.X_OK),
                    reason="no Python 3.9 here (pyenv) to stand for one where NaNs collide")
def test_nan_keys_are_refused_where_every_nan_hashes_alike(tmp_path):
    body = b"".join(b"G" + struct.pack(">d", math.nan) + b"K\x00" for _ in range(6000))
    (tmp_path / "s.pickle").write_bytes(b"\x80\x04}(" + body + b"u.")
    r = memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path,
               env={"MEMREL_PYTHON": OLD_PYTHON}, timeout=300)
    refused(r, "s.pickle", "hashes collide")


@needs_memrel
def test_history_plots_of_backends_that_differ_only_by_case_are_distinct_files(tmp_path):
    """c6-history-report-case-only-plot-names (sixteenth pass): nights of 'Foo' and of 'foo'
    gave history-latency-Foo.png and history-latency-foo.png, one file on a case-insensitive
    file system or in a zip."""
    for name, run in (("Foo", "f1.json"), ("foo", "f2.json")):
        doc = json.loads(backend_file_beside(tmp_path, f"{name}.json").read_text())
        doc["name"] = name
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
        r = memrel("-q", "run", "-b", f"./{name}.json", "-w", "temp-then-delete", "-o", run,
                   cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = memrel("-q", "history", "--db", "h.db", "add", "f1.json", "f2.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("-q", "report", "--history", "h.db", "--out", "rep", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    names = os.listdir(tmp_path / "rep")
    assert len({n.lower() for n in names}) == len(names), sorted(names)
    assert any(n.startswith("history-latency-Foo-") for n in names), sorted(names)
    page = (tmp_path / "rep" / "history-latency.html").read_text()
    for n in names:
        if n.startswith("history-latency-") and n.endswith(".svg"):
            assert n in page or n[:-4] in page, n


@needs_memrel
@pytest.mark.parametrize("capacity", ["1", "9"])
def test_a_host_capacity_too_small_for_a_workload_is_the_options_fault(tmp_path, capacity):
    """c4-run-host-capacity-1-byte (sixteenth pass): `--host-capacity 1` passed the option
    check, then every host cell of fragmentation failed ("device_fraction resolves to 0
    bytes"), exit 3, a results file of error cells."""
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete,fragmentation",
                   "--host-capacity", capacity, "-o", "o.json", cwd=tmp_path),
            f"--host-capacity {capacity}", "fragmentation", "0 bytes")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_small_host_capacity_that_every_workload_fits_still_runs(tmp_path):
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "--host-capacity",
               "1", "-o", "o.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    cells = json.loads((tmp_path / "o.json").read_text())["cells"]
    assert [c["status"] for c in cells] == ["ok"]


def test_trace_import_still_takes_the_fast_path_for_a_plain_snapshot():
    """The careful path is for pickles that need it: a snapshot of addresses, sizes and
    microseconds (all below 2^53) is not sent there."""
    snapshot = {"segments": [{"address": 0x7f00_0000_0000, "total_size": 20 << 20,
                              "blocks": [{"size": 512, "state": "active_allocated"}]}],
                "device_traces": [[{"action": "alloc", "addr": 0x7f00_0000_0000, "size": 512,
                                    "time_us": 1_733_000_000_000_000, "stream": 0}]]}
    for protocol in range(2, 6):
        assert scan().hashes_something(pickle.dumps(snapshot, protocol=protocol)) is False



@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "-o", "t.memtrace", RMM_LOG],
                                     ["report", "--out", "rep",
                                      os.path.join(ROOT, "tests", "data", "host-run.json")]])
def test_what_an_interpreter_writes_before_memrels_code_runs_is_not_shown(tmp_path, command):
    """c8-fakepy-stderr-lines-*: a wrapper that printed "pyenv: python3.11: command not found"
    and exit 1 had its lines shown before memrel's one line: three lines."""
    fake = interpreter_that_answers_the_probe(
        tmp_path, 'echo "pyenv: python3.11: command not found" >&2; echo "second line" >&2; exit 1')
    said_it_ran_nothing_of_memrels(run_with_interpreter(tmp_path, "MEMREL_PYTHON", fake, *command))
    assert sorted(os.listdir(tmp_path)) == ["fp"]


def private_copy(tmp_path):
    """A copy of memrel (binary, memrel_bench, scripts, benchmarks) that a test may break."""
    copy = tmp_path / "copy"
    (copy / "build" / "ci" / "benchmarks").mkdir(parents=True)
    shutil.copytree(SCRIPTS, copy / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "benchmarks"), copy / "benchmarks")
    shutil.copy(MEMREL, copy / "build" / "ci" / "memrel")
    if memrel_bench_binary():
        shutil.copy(memrel_bench_binary(), copy / "build" / "ci" / "benchmarks" / "memrel_bench")
    (copy / "build" / "ci" / "memrel-build-tree").write_text(str(copy))
    return copy


def run_copy(copy, *args):
    return subprocess.run([str(copy / "build" / "ci" / "memrel"), "-q", *map(str, args)],
                          capture_output=True, text=True, cwd=copy.parent, timeout=300)


def one_line_exit_4(r, *words):
    refused(r, *words, exit_code=4)


@needs_memrel
@pytest.mark.parametrize("removed, command, words", [
    ("memrel_entry.py", ["trace", "import", "-o", "t.memtrace", RMM_LOG],
     ["memrel_entry.py not found", "installation is incomplete"]),
    ("memrel_outputs", ["trace", "import", "-o", "t.memtrace", RMM_LOG],
     ["module memrel_outputs", "installation is incomplete"]),
    ("memrel_help.py", ["trace", "import", "-o", "t.memtrace", RMM_LOG],
     ["module memrel_help", "installation is incomplete"]),
    ("memrel_report/units.py", ["report", "--out", "rep",
                                os.path.join(ROOT, "tests", "data", "host-run.json")],
     ["memrel_report.units", "installation is incomplete"]),
])
def test_a_file_missing_from_memrels_own_scripts_is_one_line_exit_4(tmp_path, removed, command,
                                                                      words):
    """c8-missing-entry, c8-missing-outputs-package, c8-missing-memrel-help,
    c8-missing-report-submodule: Python's "can't open file" beside memrel's line blaming the
    interpreter, or runpy's traceback of a ModuleNotFoundError (14 to 18 lines)."""
    copy = private_copy(tmp_path)
    target = copy / "scripts" / removed
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    one_line_exit_4(run_copy(copy, *command), *words)
    assert sorted(os.listdir(tmp_path)) == ["copy"]


@needs_bench
@pytest.mark.parametrize("command", [["bench", "-b", "host-malloc", "--quick", "-o", "bo"],
                                     ["ab", "-b", "host-malloc", "--quick", "--out", "abo"]])
def test_a_memrel_bench_missing_from_the_build_is_exit_4(tmp_path, command):
    """c8-missing-memrel-bench-*: the build's state, not the user's input, was exit 2."""
    copy = private_copy(tmp_path)
    (copy / "build" / "ci" / "benchmarks" / "memrel_bench").unlink()
    one_line_exit_4(run_copy(copy, *command), "no memrel_bench beside")
    assert sorted(os.listdir(tmp_path)) == ["copy"]


EVIL_C = r"""#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
void* ev_alloc(ssize_t s, int d, void* st) {
  fprintf(stderr, "evil \033]0;pwn\007\033[2J<b>x</b>\n");
  fflush(stderr);
  abort();
}
void ev_free(void* p, ssize_t s, int d, void* st) {}
size_t ev_allocated(int d) { return 0; }
size_t ev_reserved(int d) { return 0; }
void ev_release(void) {}
"""


def compiled_host_backend(folder, name, c_source, prefix, description):
    """FOLDER/NAME.json: a host backend whose library is C_SOURCE built here, its functions
    PREFIX_alloc, _free, _release, _allocated and _reserved. Skips without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip(f"no C compiler to build the backend '{name}'")
    (folder / f"{name}.c").write_text(c_source)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(folder / f"lib{name}.so"),
                    str(folder / f"{name}.c")], check=True)
    (folder / f"{name}.json").write_text(json.dumps({
        "schema": "memrel.backend/1", "name": name, "description": description,
        "library": str(folder / f"lib{name}.so"), "space": "host",
        **{key: f"{prefix}_{key}" for key in ("alloc", "free", "release", "allocated",
                                              "reserved")}}))


def crashing_backend(folder):
    """A host backend whose first allocation writes terminal escapes to stderr and aborts."""
    compiled_host_backend(folder, "evil", EVIL_C, "ev", "aborts, loudly")


@needs_memrel
@pytest.mark.parametrize("verbosity", [[], ["-v"]])
def test_a_cells_stderr_reaches_the_terminal_escaped(tmp_path, verbosity):
    """c9-run-cell-stderr-esc-to-terminal, c9-advise-cell-stderr-esc-to-terminal: a crashing
    allocator's ESC ]0; (the terminal's title) and ESC [2J (clear the screen) were printed raw in
    the cell's line."""
    crashing_backend(tmp_path)
    r = subprocess.run([MEMREL, *verbosity, "run", "-b", "./evil.json", "-w", "temp-then-delete",
                        "-o", "o.json"], capture_output=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 3, r.stderr
    assert b"evil" in r.stderr and b"\\x1b" in r.stderr, r.stderr
    assert b"\x1b" not in r.stderr + r.stdout and b"\x07" not in r.stderr + r.stdout


# Answers memrel's --help probe as memrel_bench does, then fails with terminal escapes.
FAILING_BENCH = """#!/bin/bash
for a in "$@"; do [ "$a" = --help ] && exec {bench} --help; done
printf 'stdout \\033]0;pwn\\007\\033[31mred\\n'
exit 1
"""


@needs_bench
def test_memrel_benchs_failure_line_reaches_the_terminal_escaped(tmp_path):
    """c9-bench-failure-esc-to-terminal, c9-ab-candidate-failure-esc-to-terminal: the last line
    of a failing memrel_bench was printed raw by bench and by ab."""
    fake = tmp_path / "fake_bench"
    fake.write_text(FAILING_BENCH.format(bench=memrel_bench_binary()))
    fake.chmod(0o755)
    for args in (["bench", "-b", "host-malloc", "--quick", "--bench", str(fake), "-o", "bo"],
                 ["ab", "-b", "host-malloc", "--quick", "--candidate-bench", str(fake),
                  "--out", "abo"]):
        r = subprocess.run([MEMREL, "-q", *args], capture_output=True, cwd=tmp_path, timeout=300)
        assert r.returncode != 0, (args, r.stderr)
        assert b"\x1b" not in r.stderr + r.stdout and b"\x07" not in r.stderr + r.stdout, \
            (args, r.stderr)


@needs_memrel
@pytest.mark.parametrize("field", ["addr", "stream"])
def test_snapshot_numbers_that_would_hash_alike_are_range_checked_before_they_are_hashed(tmp_path,
                                                                                       field):
    """c7-snapshot-addr-hash-collide-quadratic, c7-snapshot-stream-hash-collide-quadratic: the
    addresses (the replay's dict of live blocks) and the streams (a set) were hashed before their
    range was checked; 40,000 addresses k * (2^61 - 1), 1.2 MB, took 20 s, 60,000 streams 32 s.
    With 100,000 the old code runs for minutes; the range check refuses the first at once."""
    trace = [{"action": "alloc", "addr": (k + 1) * 4096, "size": 1, "stream": 0}
             for k in range(100_000)]
    for k, entry in enumerate(trace):
        entry[field] = (k + 1) * HASH_MODULUS
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"device_traces": [trace], "segments": []},
                                                     protocol=4))
    try:
        r = memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path,
                   timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the import ran past 60 s")
    refused(r, "s.pickle", "device_traces[0][8]", f"'{field}'", "out of range")  # 8 * M < 2^64


@needs_memrel
@pytest.mark.parametrize("folder_option, name", [("--backends-dir", "t.json"),
                                                 ("--workloads-dir", "t.json")])
def test_trace_import_writes_no_file_a_read_folder_would_take(tmp_path, folder_option, name):
    """c1-trace-import-o-json-into-backends-dir*: `trace import -o BACKENDS/t.json` was written,
    and every later run refused it as a malformed backend file."""
    (tmp_path / "folder").mkdir()
    r = memrel("-q", folder_option, "folder", "trace", "import", "-o", f"folder/{name}", RMM_LOG,
               cwd=tmp_path)
    refused(r, f"folder/{name}", "read as a", "every memrel run")
    assert os.listdir(tmp_path / "folder") == []


@needs_memrel
def test_trace_import_still_adds_a_trace_to_the_workloads_folder(tmp_path):
    (tmp_path / "folder").mkdir()
    r = memrel("-q", "--workloads-dir", "folder", "trace", "import", "-o", "folder/t.memtrace",
               RMM_LOG, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp_path / "folder") == ["t.memtrace"]


@needs_memrel
@pytest.mark.parametrize("folder_option", ["--backends-dir", "--workloads-dir"])
def test_history_changes_writes_no_markdown_a_read_folder_would_take(tmp_path, folder_option):
    """c1-history-changes-markdown-json-into-*-dir: `history changes --markdown BACKENDS/c.json`
    exit 0, and every later run failed on it."""
    (tmp_path / "folder").mkdir()
    r = memrel("-q", "history", "--db", "h.db", "add",
               os.path.join(ROOT, "tests", "data", "host-run.json"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("-q", folder_option, "folder", "history", "--db", "h.db", "changes", "--markdown",
               "folder/c.json", cwd=tmp_path, timeout=300)
    refused(r, "folder/c.json", "read as a")
    assert os.listdir(tmp_path / "folder") == []


def one_workload_run(folder):
    """A real host run cut to one workload: a report of it renders in a second or two."""
    return host_subset(folder, ["temp-then-delete"], name="subset.json")


@needs_memrel
@pytest.mark.parametrize("kind", ["fifo", "symlink", "folder"])
def test_a_report_marks_the_folder_it_replaces_without_going_through_what_is_there(tmp_path,
                                                                                   kind):
    """c2-report-replaced-mark-fifo-hangs, c2-report-replaced-mark-symlink-writes-through: a FIFO
    named .memrel-report-replaced in the earlier report hung the next one for ever; a symbolic
    link had the mark written through to the file it named."""
    run = one_workload_run(tmp_path)
    r = memrel("-q", "report", "--out", "rep", run, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    (tmp_path / "precious").write_text("precious\n")
    mark = tmp_path / "rep" / ".memrel-report-replaced"
    if kind == "fifo":
        os.mkfifo(mark)
    elif kind == "symlink":
        mark.symlink_to(tmp_path / "precious")
    else:
        mark.mkdir()
    try:
        r = memrel("-q", "report", "--out", "rep", run, cwd=tmp_path, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the report hung on the mark")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "precious").read_text() == "precious\n"
    assert sorted(os.listdir(tmp_path)) == ["precious", "rep", "subset.json"]
    assert not os.path.lexists(mark)


@needs_memrel
def test_a_folder_is_not_made_a_report_by_a_symbolic_link_named_as_the_mark(tmp_path):
    """A user's folder holding a link named .memrel-report (to a file) was taken for an earlier
    report and replaced whole."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine\n")
    (tmp_path / "elsewhere").write_text("x\n")
    (tmp_path / "mine" / ".memrel-report").symlink_to(tmp_path / "elsewhere")
    refused(memrel("-q", "report", "--out", "mine", one_workload_run(tmp_path), cwd=tmp_path,
                   timeout=120),
            "not a memrel report folder")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine\n"


@needs_memrel
def test_a_workload_named_with_a_slash_stays_its_backends_in_the_history_site(tmp_path):
    """c6-history-site-workload-slash-*: a workload 'host-malloc-retain/x' run on host-malloc
    was drawn on a chart of 'host-malloc-retain', and 'a/b' made a backend 'a' of its own: the
    history's metric 'host-malloc/a/b:...' was read as a benchmark's operation/backend/mode."""
    with open(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")) as f:
        workload = json.load(f)
    for name, file in (("host-malloc-retain/x", "w1.json"), ("c", "w2.json")):
        (tmp_path / file).write_text(json.dumps(dict(workload, name=name)))
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "w1.json,w2.json", "-o", "r.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("-q", "history", "--db", "h.db", "add", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("-q", "report", "--out", "rep", "--history", "h.db", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    charts = {n.split("-", 3)[-1].rsplit(".", 1)[0] for n in os.listdir(tmp_path / "rep")
              if n.startswith("history-peak-reserved-") and n.endswith(".svg")}
    assert charts == {"host-malloc"}, charts


@needs_memrel
@pytest.mark.parametrize("stale, mark", [("rep.tmp-4000000", ".memrel-report-partial"),
                                         ("rep.old-4000000", ".memrel-report-replaced")])
def test_a_report_keeps_a_stale_looking_folder_that_holds_one_of_its_inputs(tmp_path, stale,
                                                                           mark):
    """c1-report-removes-stale-*-holding-its-*: a results file or a history DB kept in what looked
    like a dead report's temporary or replaced folder was removed with it, before it was read."""
    run = one_workload_run(tmp_path)
    r = memrel("-q", "report", "--out", "rep", run, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    (tmp_path / stale).mkdir()
    (tmp_path / stale / mark).write_text("")
    kept = tmp_path / stale / "in.json"
    shutil.copy(run, kept)
    r = memrel("-q", "report", "--out", "rep", kept, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert kept.read_bytes() == open(run, "rb").read()


@needs_bench
def test_bench_keeps_a_backend_file_named_as_its_stale_temporary(tmp_path):
    """c1-bench-removes-stale-tmp-that-is-its-input: `-b bo/bench-x.json.tmp-4000000 -o bo`
    removed its own backend file as a dead bench's temporary."""
    (tmp_path / "bo").mkdir()
    backend = backend_file_beside(tmp_path / "bo", "bench-pluggable-host-example.json.tmp-4000000")
    before = backend.read_bytes()
    memrel("-q", "bench", "-b", f"./{backend.relative_to(tmp_path)}", "--quick", "--min-time",
           "0.001", "-o", "bo", cwd=tmp_path, timeout=300)
    assert backend.read_bytes() == before


@needs_bench
def test_ab_removes_a_dead_abs_temporaries_from_its_rounds(tmp_path):
    """c9-sigkill-ab-next-ab-no-leftovers: a SIGKILLed ab left
    rounds/candidate-host-malloc-1.json.tmp-PID; the next ab into the folder kept it for good."""
    args = ["-q", "ab", "-b", "host-malloc", "--rounds", "5", "--looks", "1", "--quick",
            "--min-time", "0.001", "--out", "abo"]
    r = memrel(*args, cwd=tmp_path, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    left = [tmp_path / "abo" / "rounds" / f"{side}-host-malloc-1.{ext}.tmp-4000000"
            for side in ("reference", "candidate") for ext in ("json", "log")]
    for path in left:
        path.write_text("{")
    r = memrel(*args, cwd=tmp_path, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    assert [p.name for p in left if p.exists()] == []


@needs_memrel
def test_a_group_that_expands_past_the_step_limit_on_the_host_capacity_is_refused_at_the_start(
        tmp_path):
    """c4-alloc-many-expands-past-cap-exit3: 1-byte blocks up to half of the 1 GiB host capacity
    passed the start, and every host cell failed with "expands to more than 1000000 steps"."""
    (tmp_path / "w.json").write_text(json.dumps({
        "schema": "memrel.workload/1", "name": "w", "description": "d",
        "steps": [{"alloc_many": "g", "sizes": [1], "until_device_fraction": 0.5}]}))
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "./w.json", "-o", "x.json",
                   cwd=tmp_path), "expands to more than 1000000 steps", "--host-capacity 1GiB")
    assert sorted(os.listdir(tmp_path)) == ["w.json"]


def test_no_string_of_memrels_python_holds_a_lone_surrogate():
    """c8-python313-*: a docstring of torch_snapshot held '\\ud800' (an escape meant as text), a
    lone surrogate Python 3.13 cannot compile: the importer failed with a traceback there, though
    3.9 or later is what memrel asks for."""
    import ast

    found = []
    for top, _dirs, names in os.walk(SCRIPTS):
        for name in names:
            if not name.endswith(".py"):
                continue
            path = os.path.join(top, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    try:
                        node.value.encode("utf-8")
                    except UnicodeEncodeError:
                        found.append(f"{path}:{node.lineno}")
    assert found == []


PROTOCOL_0_SNAPSHOT = {"device_traces": [[{"action": "alloc", "addr": 4096, "size": 777,
                                           "stream": 0}]], "segments": []}


@needs_memrel
@pytest.mark.parametrize("careful", [False, True])
@pytest.mark.parametrize("spelling", [b"I7_77\n", b"I+777\n", b"I 777\n", b"I0x309\n",
                                      b"I01411\n", b"L7_77L\n", b"L+777L\n"])
def test_a_protocol_0_number_spelled_as_no_pickler_writes_it_is_refused(tmp_path, spelling,
                                                                       careful):
    """c7-pickle-proto0-int-spellings: "I7_77", "I+777", "I 777" and "I0x309" were imported as
    777 (exit 0), and "I01411" as octal 777, where an RMM log's numbers are ASCII digits only.
    `careful`: a tuple in the pickle sends it to the pure-Python unpickler, which reads the text
    with int(text, 0)."""
    snapshot = dict(PROTOCOL_0_SNAPSHOT, extra=(1, 2)) if careful else PROTOCOL_0_SNAPSHOT
    data = pickle.dumps(snapshot, protocol=0)
    assert data.count(b"I777\n") == 1
    (tmp_path / "s.pickle").write_bytes(data.replace(b"I777\n", spelling))
    refused(memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path),
            "s.pickle", "spelled as no pickler writes one")
    assert os.listdir(tmp_path) == ["s.pickle"]


@needs_memrel
@pytest.mark.parametrize("careful", [False, True])
def test_protocol_0_numbers_as_pickle_writes_them_still_import(tmp_path, careful):
    snapshot = dict(PROTOCOL_0_SNAPSHOT, numbers=[0, -1, 2 ** 40, -(2 ** 40), 1.5, -0.0, 1e300,
                                                  1e-05, math.inf, -math.inf, True, False])
    if careful:
        snapshot["extra"] = (1, 2)
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(snapshot, protocol=0))
    r = memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_a_library_the_interpreter_lacks_is_one_line_exit_4(tmp_path):
    """c8-no-matplotlib-advise: advise's page with a Python without matplotlib printed an
    18-line traceback, where the report says it in one line. A copy of memrel whose page needs a
    library no Python has stands for it."""
    copy = private_copy(tmp_path)
    page = copy / "scripts" / "memrel_report" / "units.py"
    page.write_text("import absent_library_of_a_memrel_test  # noqa: F401\n" + page.read_text())
    r = run_copy(copy, "report", "--out", "rep", one_workload_run(tmp_path))
    one_line_exit_4(r, "cannot import absent_library_of_a_memrel_test", "scripts/install-deps")


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                                      "r.json"],
                                     ["trace", "import", "-o", "t.memtrace", RMM_LOG]])
def test_a_stack_limit_too_small_for_memrel_is_one_line_exit_4(tmp_path, command):
    """c8-ulimit-s-64k-segfault: under `ulimit -s 64` run, trace import and report died of
    SIGSEGV, exit 139, without a word."""
    r = subprocess.run(["sh", "-c", 'ulimit -s 64 && exec "$@"', "sh", MEMREL, "-q", *command],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    one_line_exit_4(r, "stack limit is 64 KiB", "ulimit -s")
    assert os.listdir(tmp_path) == []


def machine_memory():
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "host-malloc", "-w", "fragmentation", "-o",
                                      "r.json"],
                                     ["advise", "-b", "host-malloc", "--out", "adv", RMM_LOG]])
def test_a_host_capacity_above_the_machines_memory_is_refused(tmp_path, command):
    """c8-host-capacity-above-ram-oom-crash: `--host-capacity 1TiB` on a 23 GiB machine was
    taken, and the cells were killed by the kernel's out-of-memory killer, recorded as crashed."""
    capacity = str(machine_memory() * 2)
    refused(memrel("-q", *command, "--host-capacity", capacity, cwd=tmp_path),
            f"--host-capacity {capacity}", "more than this machine's memory")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("variable, value, words", [
    ("MEMREL_GIT_COMMIT", "abc\x1b[31m\nx", ["MEMREL_GIT_COMMIT", "control character"]),
    ("MEMREL_GIT_COMMIT", "", ["MEMREL_GIT_COMMIT", "empty"]),
    ("MEMREL_INJECT_FAULT", "slow-exit:xx", ["MEMREL_INJECT_FAULT=slow-exit:xx"]),
    ("MEMREL_INJECT_FAULT", "explode", ["MEMREL_INJECT_FAULT=explode", "none of"]),
    ("MEMREL_INJECT_FAULT", "rendezvous:/tmp", ["MEMREL_INJECT_FAULT=rendezvous:/tmp"]),
])
def test_an_environment_variable_of_no_usable_value_is_refused_before_any_cell(tmp_path, variable,
                                                                              value, words):
    """c9-env-git-commit-control-chars: ESC and a newline in MEMREL_GIT_COMMIT were recorded as
    the run's commit; c8-inject-fault-env-bad-value-cell-error: a hook value of no form became
    every cell's "error stoul", exit 3."""
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "r.json",
                   cwd=tmp_path, env={variable: value}), *words)
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("name", ["backend", "workload"])
@pytest.mark.parametrize("reader", ["report", "compare"])
def test_every_reader_refuses_a_results_file_whose_names_hold_a_control_character(tmp_path, name,
                                                                                 reader):
    """c6-report-results-hand-edited-*-control-char: a hand-edited name with ESC and BEL was
    reported (exit 0) and, for a workload, compared (exit 0), where history add refused it."""
    doc = json.loads(open(one_workload_run(tmp_path), encoding="utf-8").read())
    doc["cells"][0][name] += "\x1b]0;pwn\x07"
    (tmp_path / "e.json").write_text(json.dumps(doc))
    args = ["report", "--out", "rep", "e.json"] if reader == "report" else \
        ["compare", "e.json", "e.json"]
    refused(memrel("-q", *args, cwd=tmp_path, timeout=300), "e.json", name,
            "control, invisible, text-direction or noncharacter")
    assert sorted(os.listdir(tmp_path)) == ["e.json", "subset.json"]


@needs_memrel
def test_history_nights_without_a_history_is_refused(tmp_path):
    """c10-report-history-nights-without-history: accepted, and it did nothing."""
    refused(memrel("-q", "report", "--out", "rep", "--history-nights", "3",
                   one_workload_run(tmp_path), cwd=tmp_path), "--history-nights", "--history")
    assert sorted(os.listdir(tmp_path)) == ["subset.json"]
