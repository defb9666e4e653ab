"""What the twentieth adversarial pass of issue 23 found, and the nineteenth's one fault left open
(docs/inputs.md, "Twentieth pass"): each test fails on the code before its fix."""

import json
import os
import pickle
import subprocess
import sys

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, RMM_LOG, memrel, needs_memrel, refused


def _under_address_space_limit(kib, *args, cwd):
    return subprocess.run(["sh", "-c", f'ulimit -v {kib} && exec "$@"', "sh", MEMREL, "-q", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def _valid_snapshot(path, pairs):
    """A snapshot of `pairs` allocations and frees: about 90 bytes of pickle each, and ten times
    that once loaded."""
    events = []
    for i in range(pairs):
        address = 0x1000 + i * 4096
        events += [{"action": action, "addr": address, "size": 4096, "stream": 0, "time_us": 3 * i + k}
                   for k, action in enumerate(("alloc", "free_requested", "free_completed"))]
    path.write_bytes(pickle.dumps({"segments": [], "device_traces": [events]}, protocol=4))


@needs_memrel
@pytest.mark.parametrize("command", ["import", "run"])
def test_a_valid_snapshot_under_a_small_address_space_limit_is_the_limits_fault(tmp_path, command):
    """c8-ulimit-v-pickle-blamed-on-file-*: a valid 37 MB snapshot under the user's `ulimit -v
    300000` was "refused: the pickle asks for more than 2048 MiB: malformed or hostile" (exit 2);
    it needs more memory than the user allows, which is the machine's limit (exit 4)."""
    _valid_snapshot(tmp_path / "s.pickle", 150_000)  # 14 MB, about 200 MB mapped to import
    args = (["trace", "import", "s.pickle", "-o", "t.memtrace"] if command == "import" else
            ["run", "-b", "host-malloc", "-w", "s.pickle", "-o", "r.json"])
    line = refused(_under_address_space_limit(200_000, *args, cwd=tmp_path), "s.pickle",
                   "ulimit -v", "raise the limit", exit_code=4)
    assert "hostile" not in line and "internal error" not in line, line
    assert not (tmp_path / "t.memtrace").exists() and not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_memo_bomb_under_the_same_limit_is_still_the_files_fault(tmp_path):
    """The other side of the rule: a 9-byte pickle whose memo index asks for 32 GiB at once fails
    far below the user's limit, and stays malformed or hostile (exit 2)."""
    (tmp_path / "memo.pickle").write_bytes(b"\x80\x04Nr\xff\xff\xff\x7f.")
    refused(_under_address_space_limit(200_000, "trace", "import", "memo.pickle", "-o", "t.memtrace",
                                       cwd=tmp_path), "memo.pickle", "malformed or hostile")


def _wrapper_python(tmp_path, exit_code):
    """A MEMREL_PYTHON that runs Python without exec and then exits EXIT_CODE, as a shell wrapper
    passes on a Python the OOM killer took (137) or that segfaulted (139); the version probe
    (`-c`) goes to Python itself."""
    wrapper = tmp_path / f"python-then-exit-{exit_code}"
    wrapper.write_text(f'#!/bin/sh\nif [ "$2" = "-c" ]; then exec {sys.executable} "$@"; fi\n'
                       f'{sys.executable} "$@"\nexit {exit_code}\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@needs_memrel
@pytest.mark.parametrize("exit_code", [130, 137, 139])
@pytest.mark.parametrize("command", ["trace", "report"])
def test_a_python_parts_exit_of_128_or_more_is_not_memrels_own(tmp_path, exit_code, command):
    """c8-python-wrapper-exit*: memrel exited 137 (or 139) with nothing said, and 130 meant
    "interrupted" when nothing had interrupted it: 128 + N is memrel's only when memrel asked the
    part to stop."""
    args = (["trace", "import", RMM_LOG, "-o", "t.memtrace"] if command == "trace" else
            ["report", "--out", "rep", HOST_RUN])
    r = memrel("-q", *args, env={"MEMREL_PYTHON": _wrapper_python(tmp_path, exit_code)},
               cwd=tmp_path, timeout=300)
    assert r.returncode == 4, (r.returncode, r.stderr)
    last = r.stderr.strip().splitlines()[-1]
    # memrel's code ended 0 before the wrapper's exit: said as the wrapper's change (the
    # sixty-first pass), where it was "none of memrel's exit codes (the Python part failed)".
    assert (f"exited {exit_code}, but memrel's code ended with 0, its outputs in place" in last
            and "a wrapper changed how its Python ended" in last), r.stderr


@needs_memrel
@pytest.mark.parametrize("exit_code", [1, 137])
def test_an_imports_failing_interpreter_is_named_in_run(tmp_path, exit_code):
    """c8-run-pickle-python-exit1-says-nothing: `run -w snap.pickle` said "internal error:
    importing ./snap.pickle: no message" where `trace import` named the interpreter and how it
    ended."""
    _valid_snapshot(tmp_path / "snap.pickle", 10)
    python = _wrapper_python(tmp_path, exit_code)
    line = refused(memrel("-q", "run", "-b", "host-malloc", "-w", "./snap.pickle", "-o", "r.json",
                          env={"MEMREL_PYTHON": python}, cwd=tmp_path),
                   "snap.pickle", python, f"exited {exit_code}", exit_code=4)
    assert "no message" not in line and "internal error" not in line, line
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_memrel_bench_that_writes_nothing_without_saying_why_failed(tmp_path):
    """c8-bench-broken-bench-exit0-is-unavailable: a memrel_bench that passed memrel's probes and
    exited 0 having written nothing made host-malloc "unavailable here: " (no reason), exit 0.
    Unavailable is what memrel_bench says; anything else is a failure of the bench (exit 3)."""
    real = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    fake = tmp_path / "memrel_bench"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --help|--version|'
                    f'--benchmark_list_tests*) exec {real} "$@";; esac; done\nexit 0\n')
    fake.chmod(0o755)
    r = memrel("-q", "bench", "-b", "host-malloc", "--bench", fake, "-o", "bo", "--quick",
               cwd=tmp_path)
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "bench host-malloc: rc 0: exited 0 and wrote no results file" in r.stderr, r.stderr
    assert "unavailable here: \n" not in r.stderr


@needs_memrel
def test_a_backend_memrel_bench_says_is_unavailable_stays_unavailable(tmp_path):
    """The other side: memrel_bench's own "backend X unavailable: why" (a GPU backend on a machine
    without one) is still a fact, exit 0."""
    r = memrel("-q", "bench", "-b", "cuda-malloc", "--quick", "--filter", "^pair/", "-o", "bo",
               cwd=tmp_path)
    if "unavailable" not in r.stderr:
        pytest.skip("cuda-malloc runs here")
    assert r.returncode == 0, r.stderr
    assert "bench cuda-malloc: unavailable here: memrel_bench: backend cuda-malloc unavailable: " \
        in r.stderr, r.stderr


RUN_ARGS = ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "r.json"]


@needs_memrel
@pytest.mark.parametrize("left", [b"", b'{"schema": "memrel.journal/1", "run": {'])
def test_a_journal_of_a_run_killed_as_it_began_does_not_block_the_next(tmp_path, left):
    """c5-sigkill-leaves-empty-journal, c5-empty-journal-file-blocks-both,
    c5-partial-header-journal-blocks-both: a run killed between making its journal and writing
    its first line left 0 bytes; the next run said "continue it with --resume", and --resume
    said "empty file". Such a file holds no cell: --resume says so and what to do, a fresh run
    replaces it."""
    (tmp_path / "r.json.journal").write_bytes(left)
    refused(memrel("-q", *RUN_ARGS, "--resume", cwd=tmp_path), "r.json.journal", "holds no cell",
            "without --resume")
    r = memrel("-q", *RUN_ARGS, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "r.json").exists() and not (tmp_path / "r.json.journal").exists()


@needs_memrel
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_what_is_no_file_at_the_journals_place_is_not_called_a_journal(tmp_path, kind):
    """c5-journal-not-a-file-advice: a FIFO or a folder there was "the journal of an interrupted
    run is there: continue it with --resume", which refused it."""
    place = tmp_path / "r.json.journal"
    os.mkfifo(place) if kind == "fifo" else place.mkdir()
    line = refused(memrel("-q", *RUN_ARGS, cwd=tmp_path), "r.json.journal",
                   "a FIFO" if kind == "fifo" else "a folder", "move it away")
    assert "--resume" not in line, line


@needs_memrel
def test_an_import_source_named_memtrace_is_told_by_its_content(tmp_path):
    """c10-run-w-rmm-log-named-memtrace, c10-validate-pickle-named-memtrace: an RMM log or a
    snapshot named *.memtrace was "not a memrel trace (no MEMTRACE magic)", where the same file
    under any other name was imported: content first (docs/traces.md)."""
    with open(RMM_LOG, "rb") as f:
        (tmp_path / "log.memtrace").write_bytes(b"".join(f.readlines()[:40]))
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "./log.memtrace", "-o", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    _valid_snapshot(tmp_path / "p.memtrace", 5)
    r = memrel("validate", "./p.memtrace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def _host_example_copy(tmp_path, library_name, backend_name=None):
    """A copy of the pluggable host example's library as TMP_PATH/LIBRARY_NAME, and (given
    BACKEND_NAME) a backend file there naming it; the library's path."""
    library = tmp_path / library_name
    library.write_bytes(open(os.path.join(os.path.dirname(MEMREL),
                                          "libmemrel_pluggable_host_example.so"), "rb").read())
    if backend_name:
        with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
            backend = f.read().replace('"libmemrel_pluggable_host_example.so"', f'"{library}"')
        (tmp_path / backend_name).write_text(backend)
    return library


def start_slow_host_example_run(args, cwd):
    """`args` (a memrel run of the host example's backend) started, each of its allocations made
    to wait 0.2 s: a run to act on while it goes on."""
    return subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, MEMREL_TEST_HOST_EXAMPLE_DELAY_US="200000"))


@needs_memrel
@pytest.mark.parametrize("option", ["--markdown", "--json", "--junit", "--summary"])
def test_ab_writes_nothing_over_the_library_it_benchmarks(tmp_path, option):
    """c1-ab-*-onto-backend-library: ab's outputs were written over the shared library that the
    backend file names (and every round loads), exit 0; run, cell, advise and bench refused it."""
    library = _host_example_copy(tmp_path, "mylib.so", "b.json")
    before = library.read_bytes()
    refused(memrel("-q", "ab", "-b", "./b.json", "--rounds", "5", "--quick", "--out", "abo",
                   option, "mylib.so", cwd=tmp_path), "mylib.so")
    assert library.read_bytes() == before


@needs_memrel
def test_history_show_escapes_what_it_puts_in_its_markdown_table(tmp_path):
    """c9-history-show-raw-markup: the metric's name passed raw into `history show`'s heading and
    table ('<i>' as markup, '|' splitting a row), where compare and history changes escape it."""
    (tmp_path / "w.json").write_text('{"schema": "memrel.workload/1", "name": "a|b<i>", "steps": '
                                     '[{"alloc": "x", "bytes": 4096}, {"mark": "m"}]}')
    assert memrel("-q", "run", "-b", "host-malloc", "-w", "./w.json", "-o", "r.json",
                  cwd=tmp_path).returncode == 0
    assert memrel("-q", "history", "--db", "h.sqlite", "add", "r.json", cwd=tmp_path).returncode == 0
    r = memrel("history", "--db", "h.sqlite", "show", "host-malloc/a|b<i>:peak_reserved", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "<i>" not in r.stdout and "a\\|b&lt;i&gt;" in r.stdout, r.stdout


@needs_memrel
@pytest.mark.parametrize("started", ["x", "2026-1-1", "12026-01-01T00:00:00Z", "2026-13-01"])
def test_history_add_refuses_a_start_time_the_history_cannot_order(tmp_path, started):
    """c6-history-add-bad-started-poisons-db: a results file whose context.started is no date was
    added (exit 0), and from then on `report --history` refused the whole history."""
    with open(HOST_RUN) as f:
        run = json.load(f)
    run["context"]["started"] = started
    (tmp_path / "r.json").write_text(json.dumps(run))
    refused(memrel("-q", "history", "--db", "h.sqlite", "add", "r.json", cwd=tmp_path),
            "r.json", "context.started", "not an ISO 8601 time")
    assert memrel("-q", "history", "--db", "h.sqlite", "add", HOST_RUN, cwd=tmp_path).returncode == 0
    r = memrel("-q", "report", "--out", "rep", "--history", "h.sqlite", HOST_RUN, cwd=tmp_path,
               timeout=300)
    assert r.returncode == 0, r.stderr


def test_history_plot_names_stay_distinct_when_a_name_is_crafted_to_collide():
    """c6-history-crafted-backend-collision: 'pl-07e0f038' is 'Pl''s file part with its hash;
    beside 'Pl' and 'pl' the history report refused the whole history ("would share one history
    plot"), for every later night too. Hashing again until no two agree keeps them apart."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        from memrel_report.history_pages import backend_file_parts
    finally:
        sys.path.pop(0)
    crafted = "pl-" + __import__("hashlib").sha256(b"Pl").hexdigest()[:8]
    parts = backend_file_parts(["Pl", "pl", crafted, "host-malloc"])
    assert len({p.lower() for p in parts.values()}) == 4, parts
    assert parts["host-malloc"] == "host-malloc"


@needs_memrel
def test_report_timeline_of_a_trace_cell_is_refused_not_ignored(tmp_path):
    """c10-report-timeline-trace-cell-draws-nothing: `--timeline BACKEND/TRACE` was listed among
    the choices, taken (exit 0), and no timeline was drawn at all."""
    with open(RMM_LOG, "rb") as f:
        (tmp_path / "s.csv").write_bytes(b"".join(f.readlines()[:40]))
    assert memrel("-q", "trace", "import", "--name", "tb", "-o", "tb.memtrace", "s.csv",
                  cwd=tmp_path).returncode == 0
    assert memrel("-q", "run", "-b", "host-malloc", "-w", "./tb.memtrace,temp-then-delete", "-o",
                  "r.json", cwd=tmp_path).returncode == 0
    line = refused(memrel("-q", "report", "--out", "rep", "r.json", "--timeline", "host-malloc/tb",
                          cwd=tmp_path, timeout=300), "host-malloc/tb", "replays a trace")
    assert "host-malloc/tb," not in line.split("cells with one:")[-1], line
    assert not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("name", ["backend", "workload"])
@pytest.mark.parametrize("command", ["compare", "report", "history"])
def test_a_results_file_with_an_empty_name_is_refused(tmp_path, name, command):
    """c10-results-backend-name-empty-accepted: a cell whose backend is "" was read by compare,
    report and history add (its page "backend-unnamed-..."), where "x y" and "x/y" were refused."""
    with open(HOST_RUN) as f:
        run = json.load(f)
    run["cells"][0][name] = ""
    (tmp_path / "r.json").write_text(json.dumps(run))
    args = {"compare": ["compare", HOST_RUN, "r.json"], "report": ["report", "--out", "rep", "r.json"],
            "history": ["history", "--db", "h.sqlite", "add", "r.json"]}[command]
    refused(memrel("-q", *args, cwd=tmp_path, timeout=300), "r.json", name, "empty")


@needs_memrel
def test_ab_writes_nothing_over_a_library_a_side_preloads(tmp_path):
    """c1-ab-markdown-onto-reference-env-preload: `--reference-env LD_PRELOAD=pre.so --markdown
    pre.so` wrote the table over the library every reference round preloads."""
    library = _host_example_copy(tmp_path, "pre.so")
    before = library.read_bytes()
    refused(memrel("-q", "ab", "-b", "host-malloc", "--rounds", "5", "--quick", "--out", "abo",
                   "--reference-env", f"LD_PRELOAD={library}", "--markdown", "pre.so",
                   cwd=tmp_path), "pre.so")
    assert library.read_bytes() == before


@needs_memrel
def test_advise_of_a_missing_file_says_it_is_missing(tmp_path):
    """c10-advise-missing-input-message: `advise nosuch.html` said "not a trace (.memtrace), a
    PyTorch snapshot (.pickle) or an RMM log (.csv)"."""
    refused(memrel("-q", "advise", "-b", "host-malloc", "--out", "ao", "nosuch.html", cwd=tmp_path),
            "nosuch.html", "No such file")


@needs_memrel
def test_a_memrel_bench_usage_error_without_a_message_is_named(tmp_path):
    """c8-bench-exit2-empty-reason: a memrel_bench that exited 2 saying nothing gave a line ending
    at its colon. Since the fortieth pass an exit 2 without memrel_bench's usage message is the
    backend's failure (c8-bench-library-exit2-read-as-bad-input): exit 3, said as such."""
    real = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    fake = tmp_path / "memrel_bench"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --help|--version|'
                    f'--benchmark_list_tests*) exec {real} "$@";; esac; done\nexit 2\n')
    fake.chmod(0o755)
    r = memrel("-q", "bench", "-b", "host-malloc", "--bench", fake, "-o", "bo", "--quick",
               cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert "bench host-malloc: rc 2: exited 2 without memrel_bench's word for a usage error" in \
        r.stderr and "it said nothing" in r.stderr


@needs_memrel
@pytest.mark.parametrize("vanishing", ["library", "backend file"])
def test_a_backend_input_that_vanishes_mid_run_stops_the_run_instead_of_failing_cells(tmp_path,
                                                                                     vanishing):
    """The twenty-first pass, c8-lib-vanishes-midrun-kept-by-resume and
    c8-backend-file-vanishes-midrun: a library (or backend file) missing for a moment mid-run made
    the cells then started `error` or `crashed`, the allocator's failure, and a --resume with it
    back kept them. The run stops (exit 4) naming the file; the resume runs those cells."""
    import time
    library = _host_example_copy(tmp_path, "lib2.so", "bk.json")
    args = [MEMREL, "-q", "run", "--zygote", "none", "-b", "./bk.json", "-w",
            "temp-then-delete,fragmentation,paired-large,single-large", "-o", "r.json"]
    run = start_slow_host_example_run(args, tmp_path)
    journal = tmp_path / "r.json.journal"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and run.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= 2:  # its first cell is in
            break
        time.sleep(0.01)
    moved = tmp_path / "moved"
    (library if vanishing == "library" else tmp_path / "bk.json").rename(moved)
    _, err = run.communicate(timeout=120)
    moved.rename(library if vanishing == "library" else tmp_path / "bk.json")
    if run.returncode == 0:
        pytest.skip("every cell had loaded the backend before it vanished (a slow machine)")
    assert run.returncode == 4, err
    assert "during the run" in err and "not the allocator's failure" in err, err
    r = memrel("-q", *args[2:], "--resume", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "r.json") as f:
        assert {c["status"] for c in json.load(f)["cells"]} == {"ok"}
