"""What the twelfth adversarial pass of issue 23 found (docs/inputs.md, "Twelfth pass"): each test
fails on the code before its fix."""

import json
import os
import pickle
import shutil
import signal
import struct
import subprocess
import time

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, RMM_LOG, memrel, needs_bench, needs_memrel, refused
from test_hostile_inputs_tenth_pass import PLUGIN, backend_file, history_with_a_run


def tree(folder):
    """Every file below folder with its bytes: what must stay as it was."""
    found = {}
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, folder)] = f.read()
    return found


# --- An output's spelling is read one way by every step --------------------------------------------

@needs_memrel
@pytest.mark.parametrize("spelling", ["rep/missing/..", "link/../rep", "link/", "link/.", "link/./"])
def test_a_report_out_the_system_and_a_lexical_reading_take_apart_is_refused(tmp_path, spelling):
    """c1-report-out-missing-dotdot-*, c1-report-out-symlink-dotdot-*, c2-report-out-symlink-
    trailing-slash: `--out rep/missing/..` was checked as absent and then replaced ./rep, a user's
    folder without a marker; `link/` replaced the link with a folder; exit 0 each time."""
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "keep.txt").write_text("mine")
    (tmp_path / "deep" / "sub").mkdir(parents=True)
    os.symlink("deep/sub" if spelling.startswith("link/..") else "deep", tmp_path / "link")
    before = tree(tmp_path)
    r = memrel("-q", "report", "--out", spelling, HOST_RUN, cwd=tmp_path)
    line = refused(r, spelling)
    assert "symbolic link" in line or "does not exist" in line, line
    assert tree(tmp_path) == before
    assert os.path.islink(tmp_path / "link")
    assert sorted(os.listdir(tmp_path)) == ["deep", "link", "rep"]


@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "missing/../r.json"],
    ["trace", "import", RMM_LOG, "-o", "link/../t.memtrace"],
    ["compare", HOST_RUN, HOST_RUN, "--markdown", "link/../c.md"],
])
def test_a_file_output_through_dotdot_after_a_link_or_nothing_is_refused(tmp_path, command):
    """c10-trace-import-o-dotdot-other-filesystem: the temporary was made where a lexical reading
    put the folder and renamed to where the system did: "Invalid cross-device link" after the
    work, or the file landed beside the link."""
    (tmp_path / "deep" / "sub").mkdir(parents=True)
    os.symlink("deep/sub", tmp_path / "link")
    r = memrel("-q", *command, cwd=tmp_path)
    line = refused(r, "..")
    assert "spell the path without .." in line, line
    assert sorted(os.listdir(tmp_path)) == ["deep", "link"]
    assert os.listdir(tmp_path / "deep") == ["sub"] and os.listdir(tmp_path / "deep" / "sub") == []


@needs_memrel
def test_dotdot_out_of_a_real_folder_is_still_an_output(tmp_path):
    """What the rule leaves alone: `..` that both readings take to one folder."""
    (tmp_path / "work").mkdir()
    (tmp_path / "out").mkdir()
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "../out/r.json",
               cwd=tmp_path / "work")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "r.json").is_file()
    r = memrel("-q", "report", "--out", "../out/../rep", tmp_path / "out" / "r.json",
               cwd=tmp_path / "work")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "index.html").is_file()


@needs_memrel
@pytest.mark.parametrize("command", [["bench", "--quick", "-b", "host-malloc", "-o", "link/"],
                                     ["advise", RMM_LOG, "-b", "host-malloc", "--out", "link/"]])
def test_a_folder_output_that_is_a_link_spelled_with_a_slash_is_refused(tmp_path, command):
    """c2-bench-out-symlink-trailing-slash, c2-advise-out-symlink-trailing-slash: `-o link` was
    refused as a link and `-o link/` taken."""
    if command[0] == "bench" and not os.path.exists(os.path.join(os.path.dirname(MEMREL),
                                                                 "benchmarks", "memrel_bench")):
        pytest.skip("no memrel_bench beside memrel")
    (tmp_path / "target").mkdir()
    os.symlink("target", tmp_path / "link")
    line = refused(memrel("-q", *command, cwd=tmp_path), "link/")
    assert "symbolic link" in line, line
    assert os.listdir(tmp_path / "target") == []


@needs_memrel
def test_a_report_out_that_is_the_working_folder_is_refused(tmp_path):
    """c2-report-out-dot-empty-cwd: `--out .` failed after all the work, "Device or resource
    busy", exit 4 with Python's OSError."""
    (tmp_path / "here").mkdir()
    shutil.copy(HOST_RUN, tmp_path / "r.json")
    for out in (".", "./", "../here"):
        line = refused(memrel("-q", "report", "--out", out, tmp_path / "r.json",
                              cwd=tmp_path / "here"), "working folder")
        assert "--out" in line
    assert os.listdir(tmp_path / "here") == []


@needs_memrel
def test_a_backend_library_through_a_link_and_dotdot_is_the_one_the_system_finds(tmp_path):
    """c10-backend-library-symlink-dotdot-lexical: "library": "link/../lib.so" (link -> deep/sub)
    names deep/lib.so; memrel looked for ./lib.so."""
    (tmp_path / "deep" / "sub").mkdir(parents=True)
    os.symlink("deep/sub", tmp_path / "link")
    shutil.copy(PLUGIN, tmp_path / "deep" / "lib.so")
    backend_file(tmp_path / "bk.json")
    data = json.loads((tmp_path / "bk.json").read_text())
    data["library"] = "link/../lib.so"
    (tmp_path / "bk.json").write_text(json.dumps(data))
    r = memrel("-q", "run", "-b", "./bk.json", "-w", "temp-then-delete", "-o", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


# --- What is already written stays -----------------------------------------------------------------

@needs_memrel
def test_a_report_keeps_a_users_folder_named_like_its_old_copy(tmp_path):
    """c1-report-deletes-users-kept-old-report: `mv rep rep.old-2024` kept yesterday's report with
    the user's notes; the next report removed it as its own stale copy."""
    assert memrel("-q", "report", "--out", "rep", HOST_RUN, cwd=tmp_path).returncode == 0
    pid = 2024
    while os.path.exists(f"/proc/{pid}"):
        pid += 1
    os.rename(tmp_path / "rep", tmp_path / f"rep.old-{pid}")
    (tmp_path / f"rep.old-{pid}" / "notes.txt").write_text("mine")
    kept = tree(tmp_path / f"rep.old-{pid}")
    for _ in range(2):
        assert memrel("-q", "report", "--out", "rep", HOST_RUN, cwd=tmp_path).returncode == 0
    assert tree(tmp_path / f"rep.old-{pid}") == kept


def earlier_bench(tmp_path):
    r = memrel("-q", "bench", "--quick", "--filter", "^pair/host-malloc/warm", "-b", "host-malloc",
               "-o", "b", "--logs", "lg", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    return tree(tmp_path / "b"), tree(tmp_path / "lg")


@needs_bench
def test_a_bench_refused_for_its_filter_keeps_the_earlier_files_and_logs(tmp_path):
    """c10-bench-filter-nomatch-deletes-previous, c10-bench-logs-failure-deletes-previous-log:
    "nothing written", exit 2, and the earlier bench-host-malloc.json and its log were gone."""
    files, logs = earlier_bench(tmp_path)
    refused(memrel("-q", "bench", "--quick", "--filter", "nomatch", "-b", "host-malloc", "-o", "b",
                   "--logs", "lg", cwd=tmp_path, timeout=300), "nomatch")
    assert tree(tmp_path / "b") == files and tree(tmp_path / "lg") == logs


@needs_bench
def test_a_bench_that_times_out_keeps_the_earlier_file_and_says_so(tmp_path):
    """c10-bench-timeout-deletes-previous: the file was removed before the backend ran."""
    files, _ = earlier_bench(tmp_path)
    r = memrel("bench", "--timeout", "1", "-b", "host-malloc", "-o", "b", cwd=tmp_path, timeout=300)
    assert r.returncode == 3, r.stderr
    assert "bench-host-malloc.json there is an earlier run's, left as it was" in r.stderr
    assert tree(tmp_path / "b") == files


@needs_bench
def test_a_bench_stopped_by_sigint_keeps_the_earlier_file(tmp_path):
    """c9-sigINT-bench-deletes-previous."""
    files, _ = earlier_bench(tmp_path)
    p = subprocess.Popen([MEMREL, "-q", "bench", "--quick", "-b", "host-malloc", "-o", "b"],
                         cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert p.returncode == 130
    assert tree(tmp_path / "b") == files


@needs_memrel
def test_advise_writes_over_no_results_of_a_folder_it_did_not_write(tmp_path):
    """c1-advise-out-existing-user-folder: `advise --out ad` wrote over the user's results.json
    and advise.html there, exit 0."""
    (tmp_path / "ad").mkdir()
    (tmp_path / "ad" / "results.json").write_text('{"mine": 1}')
    (tmp_path / "ad" / "advise.html").write_text("mine")
    line = refused(memrel("-q", "advise", RMM_LOG, "-b", "host-malloc", "--out", "ad",
                          cwd=tmp_path), "ad")
    assert "no advise.json" in line
    assert tree(tmp_path / "ad") == {"results.json": b'{"mine": 1}', "advise.html": b"mine"}


# --- Numbers that switch a rule off ---------------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("option, value", [("--max-pvalue", "5e-324"), ("--max-pvalue", "0.9"),
                                           ("--min-magnitude", "1e300"), ("--min-magnitude", "11")])
def test_history_thresholds_that_keep_no_change_point_are_refused(tmp_path, option, value):
    """c4-hist-pvalue-denormal, c4-hist-mag-huge: accepted, and no change point could pass."""
    pytest.importorskip("sqlite3")
    history_with_a_run(tmp_path)
    refused(memrel("-q", "history", "--db", "h.sqlite", "changes", option, value, cwd=tmp_path),
            option)


# --- The importer's inputs -------------------------------------------------------------------------

def long_int_pickle(body):
    """A pickle that memoises one integer of 1 MiB (LONG4) and then does `body` with it (h\\x00
    gets it back)."""
    big = b"\xff" * (1 << 20) + b"\x01"
    return b"\x80\x04\x8b" + struct.pack("<I", len(big)) + big + b"\x94" + b"0" + body


@needs_memrel
@pytest.mark.parametrize("body", [b"}(" + b"h\x00N" * 800_000 + b"u.",
                                  b"\x8f(" + b"h\x00" * 800_000 + b"\x90."])
def test_a_long_integer_hashed_again_and_again_is_refused_at_once(tmp_path, body):
    """c7-pickle-int-hash-bomb, c7-snap-frozenset-int-hash: a 1 MiB integer used 800,000 times
    as a dict key or set member hashed 800 GB inside C code: still running after 60 s."""
    (tmp_path / "s.pickle").write_bytes(long_int_pickle(body))
    start = time.monotonic()
    line = refused(memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", cwd=tmp_path,
                          timeout=120), "s.pickle")
    assert "hashing" in line
    assert time.monotonic() - start < 30
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
def test_a_big_file_that_is_no_pickle_from_its_third_byte_is_refused_unread(tmp_path):
    """c7-sparse-1900m-pickle-read-whole: 1.9 GB (sparse) were read before the third byte was
    looked at."""
    with open(tmp_path / "s.pickle", "wb") as f:
        f.write(b"\x80\x04\x00")
        f.truncate(1900 << 20)
    start = time.monotonic()
    line = refused(memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", cwd=tmp_path),
                   "s.pickle")
    assert "pickle" in line
    assert time.monotonic() - start < 5


def snapshot(tmp_path, **fields):
    data = {"segments": [], "device_traces": [[{"action": "alloc", "addr": 4096, "size": 512,
                                                 "stream": 0, "time_us": 1}]]}
    data.update(fields)
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(data, protocol=4))


@needs_memrel
@pytest.mark.parametrize("fields", [
    {"segments": [{"total_size": 1 << 48, "address": i << 48,
                   "blocks": [{"size": 1 << 48, "state": "active_allocated"}]} for i in range(1, 40)]},
    {"segments": [{"total_size": 1 << 40, "address": i << 40, "blocks": []}
                  for i in range(40000)]},
])
def test_a_snapshot_past_what_a_result_holds_is_refused_at_import(tmp_path, fields):
    """c7-snap-at-start-block-sum, c7-snap-many-segments-held-overflow: a trace whose peak or
    recorded reserved bytes passed 2^53 was written, exit 0, and every cell of it crashed as its
    result was refused."""
    snapshot(tmp_path, **fields)
    refused(memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", cwd=tmp_path), "2^53")
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
def test_lone_surrogates_in_allocator_settings_make_a_trace_every_reader_takes(tmp_path):
    """c7-snap-settings-lone-surrogate, c7-snap-settings-key-surrogate: written as JSON's \\ud800,
    which validate and every run refused."""
    snapshot(tmp_path, allocator_settings={"x\udc00": "\ud800"})
    r = memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("validate", "t.memtrace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    header = json.loads(memrel("trace", "show", "t.memtrace", cwd=tmp_path).stdout)
    assert header["provenance"]["allocator_settings"] == {"x\\udc00": "\\ud800"}


# --- Nothing memrel starts outlives it --------------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", RMM_LOG, "-o", "t.memtrace"],
                                     ["run", "-b", "host-malloc", "-w", RMM_LOG, "-o", "r.json"]])
def test_what_a_python_part_leaves_behind_ends_with_it(tmp_path, command):
    """c8-python-grandchild-outlives, c8-memrel-python-sh: an interpreter wrapper (a pyenv or
    conda shim) that left a process behind: it outlived memrel."""
    tag = f"memrel-test-straggler-{os.getpid()}-{command[0]}"
    wrapper = tmp_path / "python-wrapper"
    wrapper.write_text("#!/bin/bash\n"
                       f'case "$*" in *memrel_entry*) (exec -a {tag} sleep 600) & ;; esac\n'
                       'exec python3 "$@"\n')
    wrapper.chmod(0o755)
    r = memrel("-q", *command, env={"MEMREL_PYTHON": str(wrapper)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert left == []


# --- One rule for every writer: a run's journal ---------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", RMM_LOG, "-o", "r.json.journal"],
                                     ["history", "--db", "h.sqlite", "changes", "--markdown",
                                      "r.json.journal"]])
def test_the_python_writers_refuse_a_runs_journal(tmp_path, command):
    """c5-output-onto-interrupted-journal, c5-trace-import-onto-live-journal: refused by the C++
    writers, written over by `trace import -o` and `history changes --markdown`, exit 0; a live
    run then removed the imported trace as its journal."""
    if command[0] == "history":
        pytest.importorskip("sqlite3")
        history_with_a_run(tmp_path)
    (tmp_path / "r.json.journal").write_text("cells of an interrupted run\n")
    r = memrel("-q", *command, cwd=tmp_path)
    if command[0] == "history" and r.returncode == 4 and "Otava" in r.stderr:
        pytest.skip("no Apache Otava here (scripts/install-deps)")
    refused(r, "r.json.journal", "journal")
    assert (tmp_path / "r.json.journal").read_text() == "cells of an interrupted run\n"


# --- Failures that are not the allocator's --------------------------------------------------------

@needs_memrel
def test_a_memrel_that_is_gone_when_a_cell_starts_is_the_machines_state(tmp_path):
    """c8-binary-removed-mid-run: memrel moved away mid-run (an upgrade in place): the cells
    started after it were recorded as the allocator's crash, "exited with code 127", exit 3."""
    build = tmp_path / "repo" / "build" / "ci"
    build.mkdir(parents=True)
    shutil.copytree(os.path.join(ROOT, "scripts"), tmp_path / "repo" / "scripts")
    shutil.copytree(os.path.join(ROOT, "benchmarks"), tmp_path / "repo" / "benchmarks")
    shutil.copy(MEMREL, build / "memrel")
    (build / "memrel-build-tree").write_text(str(tmp_path / "repo") + "\n")
    # The copy runs from a path that is gone once it has started: every cell's exec fails. The
    # log's import (a Python part, most of a second) comes before the first cell.
    p = subprocess.Popen([str(build / "memrel"), "-q", "run", "-b", "host-malloc", "--no-zygote",
                          "-w", RMM_LOG, "-o", "r.json"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.1)
    os.rename(build / "memrel", build / "memrel.moved")
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the run's cell started before the binary moved")
    assert p.returncode == 4, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "cannot start" in lines[0], err
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_broken_otava_environment_is_named_as_what_chose_the_interpreter(tmp_path):
    """c8-otava-venv-broken-blames-unset-variable: the error named MEMREL_HISTORY_PYTHON, which
    the user never set."""
    pytest.importorskip("sqlite3")
    history_with_a_run(tmp_path)
    venv = tmp_path / "cache" / "memrel" / "otava" / "bin"
    venv.mkdir(parents=True)
    os.symlink("/bin/false", venv / "python")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "MEMREL_HISTORY_PYTHON": ""}
    r = memrel("-q", "history", "--db", "h.sqlite", "changes", env=env, cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "(the Otava environment" in lines[0] and "(MEMREL_HISTORY_PYTHON)" not in lines[0]
