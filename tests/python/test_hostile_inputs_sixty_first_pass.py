"""What the sixty-first adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Sixty-first pass"). Each test fails on the code before its fix."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from test_hostile_inputs import MEMREL, ROOT, memrel_bench_binary, needs_bench, needs_memrel

RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def memrel(tmp_path, *args, env=None, **kwargs):
    return subprocess.run([MEMREL, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, env=env, **kwargs)


def python_wrapper(tmp_path, body):
    """A MEMREL_PYTHON that answers memrel's probes (-c) as python3 and runs memrel's code as
    BODY says ("$PY" is the interpreter)."""
    wrapper = tmp_path / "py.sh"
    wrapper.write_text(f'#!/bin/sh\nPY={sys.executable}\n'
                       'for a in "$@"; do [ "$a" = -c ] && exec "$PY" "$@"; done\n' + body + "\n")
    wrapper.chmod(0o755)
    return dict(os.environ, MEMREL_PYTHON=str(wrapper))


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", RMM_LOG, "-o", "x.memtrace"],
                                     ["history", "--db", "h.sqlite", "changes"]])
def test_a_python_wrapper_that_closes_stdout_is_one_line_not_a_traceback(tmp_path, command):
    """c8-python-wrapper-closes-stdout-traceback: a MEMREL_PYTHON wrapper that ran Python with
    standard output closed (`>&-`): a traceback (OSError: Bad file descriptor, in
    memrel_entry.py) before memrel's line; `history changes` exited 0 with it."""
    if command[0] == "history":
        # Four runs (re-indented copies are four), so that there is a series to analyse.
        with open(os.path.join(ROOT, "tests", "data", "host-run.json")) as f:
            run = json.load(f)
        for indent in range(1, 5):
            (tmp_path / f"r{indent}.json").write_text(json.dumps(run, indent=indent))
            assert memrel(tmp_path, "history", "--db", "h.sqlite", "add",
                          f"r{indent}.json").returncode == 0
    env = python_wrapper(tmp_path, 'exec "$PY" "$@" >&-')
    env["MEMREL_HISTORY_PYTHON"] = env["MEMREL_PYTHON"]  # history changes' own interpreter
    r = memrel(tmp_path, *command, env=env)
    assert r.returncode == 4, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "standard output" in r.stderr and "MEMREL_PYTHON" in r.stderr, r.stderr
    assert not (tmp_path / "x.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("code", [1, 3])
def test_a_python_wrapper_that_exits_otherwise_after_memrels_code_ended_is_said_so(tmp_path, code):
    """c8-python-wrapper-exit3-after-success-says-failed: a wrapper that ran memrel's code (which
    ended 0, the trace whole) and then exited 3 was "the Python part failed", where exit 2 or 4
    was "a wrapper changed how its Python ended ..., its outputs in place"."""
    r = memrel(tmp_path, "trace", "import", RMM_LOG, "-o", "x.memtrace",
               env=python_wrapper(tmp_path, f'"$PY" "$@"; exit {code}'))
    assert r.returncode == 4, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"exited {code}, but memrel's code ended with 0, its outputs in place" in r.stderr, \
        r.stderr
    assert "the Python part failed" not in r.stderr, r.stderr
    assert (tmp_path / "x.memtrace").exists()


@needs_bench
def test_a_bench_that_exits_3_with_a_file_recording_no_failure_keeps_no_file(tmp_path):
    """c8-bench-nonzero-exit-file-kept: a --bench that wrote whole results and then exited 3 was
    "failed", exit 3, yet its file was put in place as bench-null.json for the gate to read as a
    good result."""
    real = memrel_bench_binary()
    fake = tmp_path / "b.sh"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --help) exec '
                    f'{real} "$@";; esac; done\n{real} "$@"; exit 3\n')
    fake.chmod(0o755)
    r = memrel(tmp_path, "bench", "-b", "null", "--quick", "--min-time", "0.001", "--filter",
               "^alloc/", "--bench", fake, "-o", "bo")
    assert r.returncode == 3, r.stderr
    assert "records no failed benchmark (not kept)" in r.stderr, r.stderr
    assert not (tmp_path / "bo" / "bench-null.json").exists()


@needs_bench
def test_a_bench_that_exits_3_recording_its_failed_benchmark_keeps_the_others(tmp_path):
    """What stays: a memrel_bench whose one benchmark failed (error_message in its file) keeps
    the others' figures, exit 3, as docs/benchmarks.md says."""
    real = memrel_bench_binary()
    fake = tmp_path / "b.sh"
    # The real results with the first benchmark marked as failed, as SkipWithError writes it.
    fake.write_text(
        '#!/bin/sh\nfor a in "$@"; do case "$a" in --help) exec '
        f'{real} "$@";; --benchmark_out=*) out="${{a#--benchmark_out=}}";; esac; done\n'
        f'{real} "$@" || exit $?\n'
        f'{sys.executable} -c \'import json,sys; d=json.load(open(sys.argv[1])); '
        'b=d["benchmarks"][0]; b["error_occurred"]=True; b["error_message"]="planted"; '
        'json.dump(d, open(sys.argv[1], "w"))\' "$out"\nexit 3\n')
    fake.chmod(0o755)
    r = memrel(tmp_path, "bench", "-b", "null", "--quick", "--min-time", "0.001", "--filter",
               "^alloc/", "--bench", fake, "-o", "bo")
    assert r.returncode == 3, r.stderr
    kept = json.loads((tmp_path / "bo" / "bench-null.json").read_text())
    assert kept["benchmarks"][0]["error_message"] == "planted"


@needs_memrel
@pytest.mark.parametrize("gpus, fake", [("00,001", "2"), ("01", "2"), ("0", "02")])
def test_a_gpu_index_or_count_with_a_leading_zero_is_refused(tmp_path, gpus, fake):
    """c4-gpus-leading-zero-taken: `--gpus 00,001` ran on GPUs 0 and 1, where every other whole
    number of the command line refuses a leading zero; MEMREL_FAKE_GPUS=02 as well."""
    r = memrel(tmp_path, "-q", "run", "-b", "null", "--include-null", "-w", "single-large", "-o",
               "g.json", "--gpus", gpus, env=dict(os.environ, MEMREL_FAKE_GPUS=fake))
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "leading zero" in r.stderr, r.stderr
    assert not (tmp_path / "g.json").exists()


@needs_memrel
@pytest.mark.parametrize("value", [":", "::", "/usr/lib:", ".", "work"])
def test_ld_library_path_entries_of_the_working_folder_are_not_searched(tmp_path, value):
    """c3-ld-library-path-empty-entry-loads-cwd-library: with LD_LIBRARY_PATH=":" (what
    `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` gives when it was unset) a backend file's
    bare library name was loaded from the working folder, its constructor run. PATH's empty and
    relative entries were dropped for children already; LD_LIBRARY_PATH's are now too."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler to build the planted library")
    (tmp_path / "work").mkdir()
    (tmp_path / "other").mkdir()
    ran = tmp_path / "RAN"
    (tmp_path / "p.c").write_text(
        "#include <stdio.h>\n#include <stdlib.h>\n"
        f'__attribute__((constructor)) static void ran(void) {{ FILE* f = fopen("{ran}", "a"); '
        "if (f) { fputs(\"x\\n\", f); fclose(f); } }\n"
        "void* a(size_t n) { return malloc(n); }\nvoid f(void* p) { free(p); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", tmp_path / "work" / "libplanted.so",
                    tmp_path / "p.c"], check=True)
    (tmp_path / "other" / "bk.json").write_text(json.dumps(
        {"schema": "memrel.backend/1", "name": "planted", "description": "d",
         "library": "libplanted.so", "space": "host", "alloc": "a", "free": "f"}))
    cwd = tmp_path / "work" if value != "work" else tmp_path
    r = memrel(cwd, "-q", "run", "-b", tmp_path / "other" / "bk.json", "-w", "single-large",
               "-o", tmp_path / "other" / "r.json", env=dict(os.environ, LD_LIBRARY_PATH=value))
    assert not ran.exists(), r.stderr
    # As with the library nowhere: a backend -b names whose library does not load is refused.
    assert r.returncode == 2, r.stderr
    assert "cannot load libplanted.so" in r.stderr, r.stderr


def _edited_run(tmp_path, space):
    """A run of null on temp-then-delete with context.backends emptied and every cell's
    setup.memory_space set to SPACE."""
    assert memrel(tmp_path, "-q", "run", "-b", "null", "--include-null", "-w", "temp-then-delete",
                  "-o", "r.json").returncode == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    doc["context"]["backends"] = []
    for cell in doc["cells"]:
        cell["setup"]["memory_space"] = space
    (tmp_path / "x.json").write_text(json.dumps(doc, indent=1))


@needs_memrel
@pytest.mark.parametrize("space", ["zzz", "Host"])
@pytest.mark.parametrize("command", [["report", "--out", "R", "x.json"],
                                     ["compare", "x.json", "x.json"],
                                     ["history", "--db", "h.sqlite", "add", "x.json"]])
def test_a_memory_space_that_is_neither_device_nor_host_is_refused(tmp_path, space, command):
    """c9-report-unknown-memory-space-internal-error: a cell's setup.memory_space "zzz" (with
    context.backends empty) was "internal error: ValueError: Number of rows must be a positive
    integer, not 0", exit 4, in the report, and taken by compare and history."""
    _edited_run(tmp_path, space)
    r = memrel(tmp_path, "-q", *command)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "x.json" in r.stderr and "memory_space" in r.stderr, r.stderr
    assert "internal error" not in r.stderr
    assert not (tmp_path / "R").exists() and not (tmp_path / "h.sqlite").exists()


@needs_memrel
def test_a_cell_with_no_memory_space_is_drawn_by_its_backends_name(tmp_path):
    """The empty memory space memrel writes for a cell that never started, on cells that ran:
    the same internal error; now the backend's space is told as for a benchmark of a backend no
    results file describes (null is a host backend)."""
    _edited_run(tmp_path, "")
    r = memrel(tmp_path, "-q", "report", "--out", "R", "x.json")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "R" / "index.html").exists()
