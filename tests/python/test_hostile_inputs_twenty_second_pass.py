"""What the twenty-second adversarial pass of issue 23 found (docs/inputs.md, "Twenty-second
pass"): each test fails on the code before its fix."""

import argparse
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import HOST_BENCH, HOST_RUN, ROOT, SCRIPTS
from test_hostile_inputs import MEMREL, memrel, needs_memrel, refused, scripts_module
from test_hostile_inputs_tenth_pass import in_a_private_mount_namespace
from test_hostile_inputs_twentieth_pass import _host_example_copy, start_slow_host_example_run


def _deep_tuple_pickle(path, depth, hashed_as):
    """A pickle whose one dict key (or frozenset member) is a tuple nested DEPTH deep: an empty
    tuple, then TUPLE1 DEPTH times (a byte per level)."""
    deep = b")" + b"\x85" * depth
    body = b"}" + deep + b"K\x01s" if hashed_as == "key" else b"(" + deep + b"\x91"
    path.write_bytes(b"\x80\x04" + body + b".")


@needs_memrel
@pytest.mark.parametrize("hashed_as", ["key", "frozenset"])
@pytest.mark.parametrize("command", ["import", "run"])
def test_a_tuple_nested_a_million_deep_as_a_key_is_refused_not_a_crash(tmp_path, hashed_as, command):
    """c7-pickle-deep-tuple-key, -frozenset, c7-run-w-pickle-deep-tuple: a megabyte of TUPLE1
    as a key: hashing it recursed in C a million levels deep, and the interpreter died of
    SIGSEGV (exit 4, "python3 ended by SIGSEGV"). A hostile file: exit 2, before it is hashed."""
    _deep_tuple_pickle(tmp_path / "deep.pickle", 1_000_000, hashed_as)
    args = (["trace", "import", "deep.pickle", "-o", "t.memtrace"] if command == "import" else
            ["run", "-b", "host-malloc", "-w", "deep.pickle", "-o", "r.json"])
    refused(memrel("-q", *args, cwd=tmp_path), "deep.pickle", "nested more than 1000 deep",
            "malformed or hostile")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.pickle"]


@needs_memrel
def test_a_tuple_nested_within_the_bound_is_hashed_as_before(tmp_path):
    """The bound's other side: 999 levels load, and the file is refused for what it is (no
    snapshot), not for its nesting."""
    _deep_tuple_pickle(tmp_path / "deep.pickle", 999, "key")
    line = refused(memrel("-q", "trace", "import", "deep.pickle", "-o", "t.memtrace", cwd=tmp_path),
                   "deep.pickle", "not a PyTorch memory snapshot")
    assert "nested" not in line


@needs_memrel
@pytest.mark.parametrize("value,why", [("-0", "a negative sign on zero"),
                                       ("-00", "no leading zero")])  # the thirty-third pass's rule
def test_a_negative_sign_on_zero_is_refused_as_the_cpp_options_refuse_it(tmp_path, value, why):
    """c4-trace-import-device: `trace import --device -0` imported device 0, exit 0, where every
    C++ option refuses a negative zero; the history's thresholds took "-0.0" too."""
    _deep_tuple_pickle(tmp_path / "s.pickle", 1, "key")  # any file: the option is read first
    refused(memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", "--device", value,
                   cwd=tmp_path), "--device", why)
    memrel_help = scripts_module("memrel_help")
    for parse, text, said in ((memrel_help.whole_number, value, why),
                              (memrel_help.finite_number, value + ".0", "negative sign on zero")):
        with pytest.raises(argparse.ArgumentTypeError, match=said):
            parse(text)
    assert memrel_help.whole_number("0") == 0 and memrel_help.finite_number("0.0") == 0


def test_headings_whose_ids_would_meet_get_ids_of_their_own():
    """c6-report-history-anchor-collision: the history pages' sections for backends my_alloc and
    my-alloc had one id, and the contents' link to the first led to the second."""
    document = scripts_module("memrel_report.document")
    blocks = [document.Heading(2, "my_alloc"), document.Heading(2, "my-alloc"),
              document.Heading(2, "???"), document.Table(["a"], [["1"]], anchor="section")]
    html = document.to_html("t", blocks)
    ids = re.findall(r' id="([^"]*)"', html)
    assert sorted(ids) == ["my-alloc", "my-alloc-2", "section", "section-2"], ids
    assert re.findall(r'<a href="#([^"]*)">', html) == ["my-alloc", "my-alloc-2", "section-2"]


@needs_memrel
def test_one_bench_file_given_twice_is_refused_as_a_results_file_is(tmp_path):
    """c6-report-bench-same-file-twice: `report --bench B --bench LINK-TO-B` counted B's
    benchmarks twice, exit 0, where a results file given twice is refused."""
    os.link(HOST_BENCH, tmp_path / "again.json")
    refused(memrel("-q", "report", "--jobs", "1", "--out", "rep", "--bench", HOST_BENCH,
                   "--bench", "./again.json", HOST_RUN, cwd=tmp_path),
            "again.json", "the same file as", "given twice")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.json"]


@needs_memrel
def test_a_run_removes_its_own_journal_only_never_one_made_in_its_place(tmp_path):
    """c5-live-journal-removed-second-run-loses-cells: a run's journal removed by hand while it
    went on, a second run started on the same -o made its own there, and the first, done,
    removed that one by its name: the second's finished cells were lost. Here the other journal
    is a file put in the place; the first run, done, leaves it."""
    _host_example_copy(tmp_path, "lib.so", "bk.json")
    args = [MEMREL, "-q", "run", "--zygote", "none", "-b", "./bk.json", "-w",
            "temp-then-delete,fragmentation,paired-large", "-o", "r.json"]
    run = start_slow_host_example_run(args, tmp_path)
    journal = tmp_path / "r.json.journal"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and run.poll() is None and not journal.exists():
        time.sleep(0.01)
    journal.unlink()
    journal.write_text("another run's journal\n")
    _, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    assert journal.read_text() == "another run's journal\n"
    with open(tmp_path / "r.json") as f:
        assert [c["status"] for c in json.load(f)["cells"]] == ["ok"] * 3


@needs_memrel
@pytest.mark.parametrize("database", ["new", "existing"])
def test_history_add_past_the_file_size_limit_says_the_limit(tmp_path, database):
    """c8-ulimit-f16-hadd, c8-ulimit-f1-hnew: past `ulimit -f`, `history add` said SQLite's
    "disk I/O error" alone (exit 4): the limit, the thing to change, is said."""
    if database == "existing":
        assert memrel("-q", "history", "--db", "h.sqlite", "add", HOST_RUN, cwd=tmp_path).returncode == 0
        run = json.loads(open(HOST_RUN).read())
        run["context"]["note"] = "another run"  # another digest: added anew
        (tmp_path / "run.json").write_text(json.dumps(run))
    else:
        shutil.copy(HOST_RUN, tmp_path / "run.json")
    r = subprocess.run(["bash", "-c", 'ulimit -f 16; exec "$@"', "bash", MEMREL, "-q", "history",
                        "--db", "h.sqlite", "add", "run.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "h.sqlite: cannot write", "ulimit -f", "nothing added", exit_code=4)


@needs_memrel
def test_a_history_another_process_holds_is_the_machines_state_not_bad_input(tmp_path):
    """c8-history-add-db-locked-exit2: a database another process held locked for longer than
    memrel waits (10 s) was "database is locked", exit 2, as if the file were unusable."""
    assert memrel("-q", "history", "--db", "h.sqlite", "add", HOST_RUN, cwd=tmp_path).returncode == 0
    run = json.loads(open(HOST_RUN).read())
    run["context"]["note"] = "another run"
    (tmp_path / "run.json").write_text(json.dumps(run))
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys, time\n"
                               "c = sqlite3.connect('h.sqlite', isolation_level=None)\n"
                               "c.execute('BEGIN EXCLUSIVE'); print('held', flush=True)\n"
                               "time.sleep(60)"], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        refused(memrel("-q", "history", "--db", "h.sqlite", "add", "run.json", cwd=tmp_path),
                "h.sqlite: in use by another process for more than 10 s", "database is locked",
                "nothing added", exit_code=4)
    finally:
        holder.kill()
        holder.wait()


@needs_memrel
@pytest.mark.parametrize("args", [["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "r.json"],
                                  ["trace", "import", "{tmp}/s.pickle", "-o", "{tmp}/t.memtrace"]])
def test_a_working_folder_removed_meanwhile_is_said_as_such(tmp_path, args):
    """c8-deleted-cwd-blames-interpreter: run from a folder removed meanwhile, `run -o r.json`
    was "internal error: filesystem error: cannot make absolute path", and a Python part "not a
    Python interpreter" (pyenv's shim cannot start there)."""
    _deep_tuple_pickle(tmp_path / "s.pickle", 1, "key")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    r = subprocess.run(["bash", "-c", 'mkdir gone && cd gone && rmdir ../gone && exec "$@"', "bash",
                        MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "the working folder no longer exists", exit_code=4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.pickle"]


@needs_memrel
@pytest.mark.parametrize("zygote", ["none", "all"])
def test_an_allocator_that_exits_5_has_crashed_its_cell_not_filled_tmpdir(tmp_path, zygote):
    """c8-allocator-exit5-blamed-on-tmpdir: 5 is `memrel cell`'s code for "the result could not
    be written"; an allocator giving up with exit(5) was blamed on TMPDIR, and the whole run
    stopped (exit 4), every --resume again. The cell's own code is believed beside its line."""
    r = memrel("-q", "run", "--zygote", zygote, "-b", "host-malloc", "-w",
               "temp-then-delete,fragmentation", "-o", "r.json", cwd=tmp_path,
               env={"MEMREL_INJECT_FAULT": "exit:5", "MEMREL_INJECT_FAULT_CELL": "host-malloc/fragmentation"})
    assert r.returncode == 3, r.stderr
    assert "TMPDIR" not in r.stderr, r.stderr
    cells = {c["workload"]: c for c in json.loads((tmp_path / "r.json").read_text())["cells"]}
    assert cells["temp-then-delete"]["status"] == "ok"
    assert cells["fragmentation"]["status"] == "crashed"
    assert cells["fragmentation"]["reason"].startswith("exited with code 5"), cells["fragmentation"]


@needs_memrel
def test_a_memrel_bench_that_fails_midway_is_the_backends_failure_not_the_disks(tmp_path):
    """c8-bench-allocator-exit1-blamed-on-disk, c8-ab-allocator-exit1: an allocator that gave up
    with exit(1) mid-benchmark left memrel_bench's JSON cut off, and bench said "a full disk or
    a file size limit?" (exit 4), the backends after it never run. A file cut off by a process
    that failed is that backend's failure (exit 3); the others run."""
    real = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    fake = tmp_path / "memrel_bench"
    # As memrel_bench does for a backend whose allocator exits mid-run: part of its JSON, exit 1.
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --help|--version|'
                    f'--benchmark_list_tests*) exec {real} "$@";; esac; done\n'
                    'case "$*" in *"--backend null"*) exec ' + real + ' "$@";; esac\n'
                    'for a in "$@"; do case "$a" in --benchmark_out=*) '
                    'printf \'{"context": {"date": "x",\' > "${a#--benchmark_out=}";; esac; done\n'
                    'exit 1\n')
    fake.chmod(0o755)
    r = memrel("-q", "bench", "-b", "host-malloc,null", "--bench", fake, "-o", "bo", "--quick",
               "--filter", "^pair/", "--min-time", "0.001", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert "full disk" not in r.stderr and "host-malloc" in r.stderr, r.stderr
    assert "before its results file was whole" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path / "bo")) == ["bench-null.json"], r.stderr


def _under_limits(script, *args, cwd):
    return subprocess.run(["bash", "-c", script + '; exec "$@"', "bash", MEMREL, "-q", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@needs_memrel
def test_a_data_segment_limit_is_the_machines_as_an_address_space_limit_is(tmp_path):
    """c8-ulimit-d-recorded-as-allocator-oom: under `ulimit -d 100000` (which bounds malloc's
    mappings too), glibc's malloc failed at 64 MiB and the cell was the allocator's own "oom",
    exit 0, no word of the limit; under `ulimit -v` the same is an error naming the limit."""
    r = _under_limits("ulimit -d 100000", "run", "-b", "host-malloc", "-w", "fragmentation",
                      "-o", "r.json", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    cell = json.loads((tmp_path / "r.json").read_text())["cells"][0]
    assert cell["status"] == "error", cell
    assert "under a data-segment limit of 100000 KiB (ulimit -d): the machine's limit" in cell["reason"]


@needs_memrel
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build the refusing allocator")
def test_an_allocators_own_refusal_far_below_a_generous_limit_stays_its_outcome(tmp_path):
    """c8-allocator-oom-blamed-on-ulimit-v: under `ulimit -v` of about 95 GiB, an allocator that
    refused 4 MB (far below the limit) had its "oom" turned into an error blamed on the limit.
    The refusal is the allocator's outcome, with the limit as without it."""
    (tmp_path / "refuses.c").write_text(
        "#include <stdlib.h>\n#include <sys/types.h>\n"
        "void* refusing_alloc(ssize_t size, int device, void* stream) {\n"
        "  return size > 1024 * 1024 ? NULL : malloc(size);\n}\n"
        "void refusing_free(void* p, ssize_t size, int device, void* stream) { free(p); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / "librefuses.so"),
                    str(tmp_path / "refuses.c")], check=True)
    (tmp_path / "refuses.json").write_text(json.dumps({
        "schema": "memrel.backend/1", "name": "refuses", "description": "refuses over 1 MiB",
        "library": str(tmp_path / "librefuses.so"), "space": "host",
        "alloc": "refusing_alloc", "free": "refusing_free"}))
    args = ["run", "-b", "./refuses.json", "-w", "temp-then-delete", "-o"]
    plain = memrel("-q", *args, "plain.json", cwd=tmp_path)
    limited = _under_limits("ulimit -v 100000000", *args, "limited.json", cwd=tmp_path)
    cells = [json.loads((tmp_path / f).read_text())["cells"][0] for f in ("plain.json", "limited.json")]
    assert (plain.returncode, cells[0]["status"]) == (0, "oom"), (plain.stderr, cells[0])
    assert (limited.returncode, cells[1]["status"]) == (0, "oom"), (limited.stderr, cells[1])
    assert "ulimit" not in cells[1]["reason"], cells[1]


@needs_memrel
@pytest.mark.parametrize("signal_number, limit", [(9, "ulimit -t 1000"), (24, "ulimit -S -t 1000")])
def test_a_cell_killed_in_milliseconds_under_a_generous_cpu_limit_has_crashed(tmp_path, signal_number, limit):
    """c8-sigkill-blamed-on-cpu-limit: under `ulimit -t 1000`, a cell SIGKILLed after a few
    milliseconds (the OOM killer's signal) was "under a CPU-time limit of 1000 s: the machine's
    limit, not the allocator's". A cell that cannot have used that much CPU time has crashed."""
    r = subprocess.run(["bash", "-c", limit + '; exec "$@"', "bash", MEMREL, "-q", "run", "-b",
                        "host-malloc", "-w", "temp-then-delete", "-o", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_INJECT_FAULT=f"signal:{signal_number}"))
    assert r.returncode == 3, r.stderr
    cell = json.loads((tmp_path / "r.json").read_text())["cells"][0]
    assert cell["status"] == "crashed", cell
    assert "CPU-time limit" not in cell["reason"], cell


@needs_memrel
@pytest.mark.parametrize("folder", ["PYTHONPATH", "user site-packages"])
def test_a_loose_module_in_a_user_folder_is_not_imported_for_a_library(tmp_path, folder):
    """c3-pythonpath-cython-*, c3-usersite-cython-*: `history changes` runs Otava, whose scipy
    tries `import cython`; the Otava environment has none, and a `cython.py` in a PYTHONPATH
    folder or the user's site-packages ran. Only what pip installed there is taken."""
    from test_history_changes import OTAVA_PYTHON
    if not os.access(OTAVA_PYTHON, os.X_OK):
        pytest.skip("needs scripts/install-deps' Otava (its scipy tries `import cython`)")
    home = tmp_path / "home"
    planted = (home / ".local" / "lib" / "python{}.{}".format(*sys.version_info[:2]) / "site-packages"
               if folder == "user site-packages" else tmp_path / "pp")
    planted.mkdir(parents=True)
    mark = tmp_path / "ran"
    planted.joinpath("cython.py").write_text(f"open({str(mark)!r}, 'a').write('ran')\n")
    assert memrel("-q", "history", "--db", "h.sqlite", "add", HOST_RUN, cwd=tmp_path).returncode == 0
    env = ({"PYTHONPATH": str(planted)} if folder == "PYTHONPATH" else
           {"HOME": str(home), "XDG_CACHE_HOME": os.path.dirname(os.path.dirname(os.path.dirname(
               os.path.dirname(OTAVA_PYTHON))))})
    r = memrel("-q", "history", "--db", "h.sqlite", "changes", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert not mark.exists(), "the planted cython.py ran"


@pytest.mark.parametrize("installed", [True, False])
def test_a_package_pip_installed_in_a_user_folder_is_still_taken(tmp_path, installed):
    """The rule's other side: PYTHONPATH and the user's site-packages may add packages memrel
    needs (scripts/install-deps falls back to `pip install --user`); what a .dist-info record
    names is imported, the same folder without its record is not."""
    package = tmp_path / "pp" / "added_by_pip"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("print('imported')\n")
    if installed:
        record = tmp_path / "pp" / "added_by_pip-1.0.dist-info"
        record.mkdir()
        (record / "RECORD").write_text("added_by_pip/__init__.py,,\nadded_by_pip/__main__.py,,\n"
                                       "added_by_pip-1.0.dist-info/RECORD,,\n")
    r = subprocess.run([sys.executable, "-I", os.path.join(SCRIPTS, "memrel_entry.py"), "added_by_pip"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env=dict(os.environ, MEMREL_PYTHONPATH=str(tmp_path / "pp")))
    if installed:
        assert (r.returncode, r.stdout) == (0, "imported\n"), r.stderr
    else:
        assert r.returncode != 0 and "only packages pip installed" in r.stderr, (r.returncode, r.stderr)


@needs_memrel
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="needs root and unshare to mount a full tmpfs in a mount namespace")
def test_bench_into_a_full_file_system_says_it_is_full(tmp_path):
    """c8-outdir-full-bench-says-no-filter-match: memrel_bench does not check its writes, and on a
    full file system its results file was empty: "no filter: matches no benchmark of any backend
    given", exit 2. The folder is checked first: full, exit 4, nothing run."""
    full = tmp_path / "full"
    full.mkdir()
    r = in_a_private_mount_namespace(f"mount -t tmpfs -o size=256k none {full} || exit 77; "
                                     f"dd if=/dev/zero of={full}/fill bs=4k count=1000 2>/dev/null; "
                                     f"{MEMREL} -q bench -b host-malloc --quick -o {full}/bo", tmp_path)
    refused(r, f"-o {full}/bo: full", "nothing run", exit_code=4)


def test_a_stopped_report_removes_its_folder_whatever_the_working_folder_is_then(tmp_path, monkeypatch):
    """c9-sigterm-report-delay-sweep: a report stopped while the pool's thread imported
    matplotlib (matplotlib_defaults takes the process to "/" for that moment) removed its
    temporary folder by a relative name, under "/": nothing went, and the half-drawn
    rep.tmp-PID stayed beside "nothing written"."""
    folder = scripts_module("memrel_report.folder")
    monkeypatch.chdir(tmp_path)

    def fill_then_stop(tmp):
        (tmp_path / os.path.basename(tmp) / "verdict.svg").write_text("<svg/>")
        os.chdir("/")  # as another thread of the process does, for a moment
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        folder.write_atomically("rep", fill_then_stop)
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_during_history_add_rolls_back_and_says_so(tmp_path, sig):
    """c9-sig*-history-add: a signal while `history add` wrote its transaction killed it outright
    (no line) and left h.sqlite-journal beside the history. It is a request to stop: rolled back,
    the journal removed, one line, exit 128 + N, nothing added."""
    assert memrel("-q", "history", "--db", "h.sqlite", "add", HOST_RUN, cwd=tmp_path).returncode == 0
    run = json.loads(open(HOST_RUN).read())
    (tmp_path / "many").mkdir()
    for i in range(600):
        run["context"]["note"] = f"night {i}"
        (tmp_path / "many" / f"r{i:04d}.json").write_text(json.dumps(run))
    add = subprocess.Popen([MEMREL, "-q", "history", "--db", "h.sqlite", "add", "many"], cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    journal = tmp_path / "h.sqlite-journal"
    deadline = time.monotonic() + 60
    while add.poll() is None and not journal.exists() and time.monotonic() < deadline:
        time.sleep(0.002)
    if add.poll() is not None:
        pytest.skip("the add ended before its transaction was seen (a fast machine)")
    add.send_signal(sig)
    _, err = add.communicate(timeout=60)
    assert add.returncode == 128 + sig, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"interrupted by {signal.Signals(sig).name}" in lines[0], err
    assert "nothing added" in lines[0], err
    assert not journal.exists()
    listed = memrel("-q", "history", "--db", "h.sqlite", "list", cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.count("\n") >= 1, listed.stderr
    # Each figure once: the first add's run alone.
    assert all(line.endswith("\t1") for line in listed.stdout.splitlines()), listed.stdout


@needs_memrel
def test_a_backend_named_host_keeps_its_own_latency_chart(tmp_path):
    """c6-report-backend-named-host-latency-chart: a backend's latency chart was latency-NAME, and
    a backend named `host` had latency-host, the file of the chart of every host backend: one
    file for two charts."""
    for source, name in ((HOST_RUN, "r.json"), (HOST_BENCH, "b.json")):
        text = re.sub(r"host-malloc(?!-retain)", "host", open(source).read())
        (tmp_path / name).write_text(text)
    r = memrel("-q", "report", "--jobs", "1", "--out", "rep", "--bench", "b.json", "r.json", cwd=tmp_path,
               timeout=300)
    assert r.returncode == 0, r.stderr
    every_host = set(re.findall(r'"(latency-[^"]*\.svg)"', (tmp_path / "rep" / "latency.html").read_text()))
    its_own = set(re.findall(r'"(latency-[^"]*\.svg)"', (tmp_path / "rep" / "backend-host.html").read_text()))
    assert every_host and its_own and not every_host & its_own, (every_host, its_own)


@needs_memrel
def test_two_bench_files_of_one_backend_are_refused(tmp_path):
    """c6-report-two-bench-files-one-backend: `--bench b1/bench-host-malloc.json --bench
    b2/bench-host-malloc.json` drew the first file's numbers and dropped the second's without a
    word, exit 0; --bench takes one file per backend."""
    other = json.loads(open(HOST_BENCH).read())
    other["context"]["date"] = "another night"
    (tmp_path / "b2.json").write_text(json.dumps(other))
    refused(memrel("-q", "report", "--jobs", "1", "--out", "rep", "--bench", HOST_BENCH, "--bench",
                   "b2.json", HOST_RUN, cwd=tmp_path),
            "b2.json", "holds benchmarks of host-malloc", "one file per backend")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b2.json"]


@needs_memrel
@pytest.mark.parametrize("args, option", [
    (["report", "--out", "a", "--out", "b", HOST_RUN], "--out"),
    (["trace", "import", "s.pickle", "-o", "t1.memtrace", "-o", "t2.memtrace"], "-o"),
    (["report", "--ou", "a", HOST_RUN], "--ou")])
def test_the_python_subcommands_take_an_option_once_and_spelled_whole(tmp_path, args, option):
    """c10-python-repeated-option-last-wins: `report --out a --out b` wrote b and never a, exit 0,
    where the C++ subcommands refuse a repeated option; and c10-python-options-abbreviated:
    `--ou` was taken for --out, which CLI11 refuses."""
    _deep_tuple_pickle(tmp_path / "s.pickle", 1, "key")
    refused(memrel("-q", *args, cwd=tmp_path), option)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.pickle"]


@needs_memrel
def test_cell_refuses_a_result_descriptor_open_for_reading_only(tmp_path):
    """c10-cell-result-fd-readonly-exit5: `cell --result-fd 5 5<file` ran the cell, then "write
    failed", exit 5, a code `cell --help` does not list: refused before the cell, exit 2."""
    (tmp_path / "ro.txt").write_text("x")
    with open(tmp_path / "ro.txt") as ro:
        fd = ro.fileno()
        r = subprocess.run([MEMREL, "-q", "cell", "--backend", "host-malloc", "--workload",
                            os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                            "--result-fd", str(fd)], capture_output=True, text=True, timeout=120,
                           pass_fds=(fd,))
    refused(r, f"--result-fd {fd}", "not open for writing")


@needs_memrel
@pytest.mark.parametrize("conf, said", [("roundup_power2_divisions:[256:1,512:2,>:8]", "expected a power of two"),
                                        (None, "PYTORCH_CUDA_ALLOC_CONF is null, not text")])
def test_advise_of_a_trace_recorded_under_settings_memrel_cannot_run(tmp_path, conf, said):
    """c10-advise-recorded-settings-*: a snapshot recorded under PyTorch's list form of
    roundup_power2_divisions (or a setting that is not text) was imported and validated, and
    advise then ran the whole sweep and stopped: exit 2 naming a backend the user never gave
    (exit 4 "internal error" for the non-text one), its journal never to be finished. The
    baseline is the defaults, and the advice says why."""
    events = [{"action": "alloc", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 1},
              {"action": "free_completed", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 2}]
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(
        {"segments": [], "device_traces": [events],
         "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": conf}}, protocol=4))
    assert memrel("-q", "trace", "import", "s.pickle", "-o", "s.memtrace", cwd=tmp_path).returncode == 0
    r = memrel("-q", "advise", "-b", "host-malloc,host-malloc-retain", "--out", "ad", "s.memtrace",
               cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    reason = json.loads((tmp_path / "ad" / "advise.json").read_text())["baseline_reason"]
    assert reason.startswith("defaults; recorded under a configuration memrel cannot run"), reason
    assert said in reason, reason
    assert not (tmp_path / "ad" / "results.json.journal").exists()


def test_the_report_tells_a_backend_by_what_its_files_record_not_by_its_name():
    """c10-report-bench-space-by-name, c10-report-torch-by-name: a host backend named jemalloc,
    benchmarked alone, was ranked and drawn with the device backends (a name not host-*), and a
    host backend named torch-mine had PyTorch's attribution chart (a name torch-*)."""
    load = scripts_module("memrel_report.load")
    prepare = scripts_module("memrel_report.prepare")
    verdicts = scripts_module("memrel_report.verdicts")
    bench = load.BenchFile(path="b.json", entries=[],
                           context={"memrel_backend": "jemalloc", "memrel_memory_space": "host"})
    spaces = verdicts.backend_spaces([], [], [bench])
    assert verdicts.space_of(spaces, "jemalloc") == "host"
    cell = load.Cell(backend="torch-mine", workload="w", status="ok", reason="", label="torch-mine",
                     run=0, raw={"setup": {"memory_space": "host"}, "marks": [{}]}, kind="pluggable")
    assert not prepare.is_torch(cell)
    assert prepare.is_torch(load.Cell(backend="torch-native", workload="w", status="ok", reason="",
                                      label="torch-native", run=0, raw={"setup": {}}, kind="torch"))


@needs_memrel
def test_a_trace_and_a_workload_of_one_name_from_two_runs_are_not_one_workload(tmp_path):
    """c6-report-workload-and-trace-one-name-two-runs: one run refuses a trace whose name is a
    workload's, but two runs, one of each, were reported as one workload: one phase chart of
    both cells' marks, labelled as if one workload had run twice."""
    events = [{"action": "alloc", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 1},
              {"action": "free_completed", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 2}]
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"segments": [], "device_traces": [events]}))
    assert memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", "--name",
                  "temp-then-delete", cwd=tmp_path).returncode == 0
    assert memrel("-q", "run", "-b", "host-malloc", "-w", "./t.memtrace", "-o", "traced.json",
                  cwd=tmp_path).returncode == 0
    refused(memrel("-q", "report", "--jobs", "1", "--out", "rep", HOST_RUN, "traced.json", cwd=tmp_path),
            "traced.json", "'temp-then-delete' is a trace", "rename one")
    assert not (tmp_path / "rep").exists()


@needs_memrel
def test_bench_under_a_memory_limit_names_it_beside_the_failed_runs(tmp_path):
    """c8-bench-ulimit-v-blamed-on-backend: under `ulimit -v 300000` memrel_bench's runs failed
    out of memory and bench said "20 benchmark run(s) of backend host-malloc failed", the limit
    named nowhere, as if the backend had failed."""
    r = _under_limits("ulimit -v 300000", "bench", "-b", "host-malloc", "--quick", "-o", "bo",
                      cwd=tmp_path)
    if r.returncode == 0:
        pytest.skip("memrel_bench's runs fit in 300000 KiB here")
    assert r.returncode == 3, r.stderr
    assert "under an address-space limit of 300000 KiB (ulimit -v)" in r.stderr, r.stderr


@needs_memrel
def test_run_of_a_badly_named_snapshot_hints_at_what_run_has(tmp_path):
    """c10-run-pickle-name-hint: `run -w 'x[1].pickle'` said "...; give --name", an option of
    `trace import` that `run` lacks."""
    events = [{"action": "alloc", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 1}]
    (tmp_path / "x[1].pickle").write_bytes(pickle.dumps({"segments": [], "device_traces": [events]}))
    line = refused(memrel("-q", "run", "-b", "host-malloc", "-w", "./x[1].pickle", "-o", "r.json",
                          cwd=tmp_path), "rename the file", "memrel trace import --name")
    assert "give --name" not in line


@needs_memrel
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="needs root and unshare to mount a read-only tmpfs in a mount namespace")
def test_report_into_a_read_only_file_system_is_refused_as_every_writer_refuses_it(tmp_path):
    """c8-outdir-readonly-report: `report --out` on a read-only file system was "internal error:
    OSError: [Errno 30] Read-only file system", exit 4, where run, bench and compare refuse a
    read-only place with exit 2 naming it."""
    ro = tmp_path / "ro"
    ro.mkdir()
    r = in_a_private_mount_namespace(f"mount -t tmpfs -o size=1m,ro none {ro} || exit 77; "
                                     f"{MEMREL} -q report --jobs 1 --out {ro}/rep {HOST_RUN}", tmp_path)
    refused(r, f"--out: {ro}/rep: cannot be written", "Read-only file system")


@needs_memrel
def test_compare_does_not_pair_a_trace_cell_with_a_workload_cell_of_its_name(tmp_path):
    """The same pair as the report's (c6-report-workload-and-trace-one-name-two-runs): `compare`
    of the two runs compared the trace's replay with the workload as one cell."""
    events = [{"action": "alloc", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 1},
              {"action": "free_completed", "addr": 4096, "size": 1 << 20, "stream": 0, "time_us": 2}]
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"segments": [], "device_traces": [events]}))
    assert memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", "--name",
                  "temp-then-delete", cwd=tmp_path).returncode == 0
    for args in (["-w", "./t.memtrace", "-o", "traced.json"], ["-w", "temp-then-delete", "-o", "plain.json"]):
        assert memrel("-q", "run", "-b", "host-malloc", *args, cwd=tmp_path).returncode == 0
    refused(memrel("compare", "plain.json", "traced.json", cwd=tmp_path),
            "plain.json vs traced.json", "cell host-malloc/temp-then-delete replays a trace", "rename one")
