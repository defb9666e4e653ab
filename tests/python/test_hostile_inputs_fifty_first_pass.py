"""What the fifty-first adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-first pass"). Each test fails on the code before its fix."""

import os
import subprocess

from test_hostile_inputs import MEMREL, needs_memrel

REAL_BENCH = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")


@needs_memrel
def test_a_memrel_bench_that_hangs_is_not_blamed_on_an_ordinary_filter(tmp_path):
    """c8-bench-hanging-bench-blamed-on-filter: a --bench that hangs at every call but --help,
    with `--filter '^alloc/'`, was "did not end within 10 s (a regular expression that
    backtracks without end?)", exit 2. It is the backend's failure: timed out, exit 3."""
    hang = tmp_path / "hangbench"
    hang.write_text(f'#!/bin/bash\nif [ "$1" = --help ]; then exec {REAL_BENCH} --help; fi\n'
                    "exec sleep 60\n")
    hang.chmod(0o755)
    r = subprocess.run([MEMREL, "-q", "bench", "-b", "null", "--quick", "--filter", "^alloc/",
                        "--timeout", "5", "--bench", str(hang), "-o", "out"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 3, r.stderr
    assert "backtracks" not in r.stderr and "timeout" in r.stderr, r.stderr


@needs_memrel
def test_trace_import_names_its_refused_output_as_every_writer_does(tmp_path):
    """c2-trace-import-garbled-refusal: "wd/x.json: -o a .json file in wd is read as a
    workload..." glued the option into the sentence; every C++ writer says "-o PATH: ..."."""
    (tmp_path / "wd").mkdir()
    src = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "trace-sources",
                       "rmm-pool-convnet.csv")
    r = subprocess.run([MEMREL, "--workloads-dir", "wd", "trace", "import", src, "-o", "wd/x.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "-o wd/x.json: a .json file in wd" in r.stderr, r.stderr
    assert not (tmp_path / "wd" / "x.json").exists()


WORKLOADS = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "workloads")


@needs_memrel
def test_every_writer_names_a_dangling_link_where_its_folder_would_be_made(tmp_path):
    """c2-dangling-link-ancestor-wrong-words: an output under d -> nowhere/x was refused in five
    wordings, bench's and ab's the false "cannot create the folder (File exists)"."""
    (tmp_path / "d").symlink_to(tmp_path / "nowhere" / "x")
    for r_json in ("a.json", "b.json"):
        subprocess.run([MEMREL, "-q", "run", "-b", "null", "-w", "temp-then-delete", "-o", r_json],
                       check=True, capture_output=True, cwd=tmp_path, timeout=120)
    trace = os.path.join(WORKLOADS, "trace-rmm-log-convnet-on-rmm-pool.memtrace")
    commands = [["run", "-b", "null", "-w", "temp-then-delete", "-o", "d/sub/x.json"],
                ["run", "-b", "null", "-w", "temp-then-delete", "-o", "d/x.json"],
                ["bench", "-b", "null", "--quick", "--filter", "^pair/", "-o", "d/sub"],
                ["ab", "-b", "null", "--quick", "--looks", "1", "--out", "d/sub"],
                ["compare", "a.json", "b.json", "--markdown", "d/sub/c.md"],
                ["trace", "import", os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks",
                                                 "trace-sources", "rmm-pool-convnet.csv"),
                 "-o", "d/sub/t.memtrace"],
                ["advise", trace, "-b", "null", "--out", "d/sub"],
                ["history", "--db", "d/sub/h.sqlite", "add", "a.json"]]
    for command in commands:
        r = subprocess.run([MEMREL, *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        assert r.returncode == 2, (command, r.stderr)
        assert f"d is a symbolic link to {tmp_path}/nowhere/x, which does not exist" in r.stderr, \
            (command, r.stderr)
        assert "File exists" not in r.stderr
    assert not (tmp_path / "nowhere").exists()


@needs_memrel
def test_a_trace_or_results_file_where_a_backend_or_grid_file_goes_is_named_by_its_kind(tmp_path):
    """c10-trace-as-backend-file: `-b ./t.memtrace` was "json: malformed JSON at byte 11: a NUL
    byte", and a results file as `advise --grid` "unknown key 'cells'"."""
    trace = os.path.join(WORKLOADS, "trace-rmm-log-convnet-on-rmm-pool.memtrace")
    for command in (["run", "-b", trace, "-w", "temp-then-delete", "-o", "r.json"],
                    ["bench", "-b", trace, "--quick", "-o", "b"]):
        r = subprocess.run([MEMREL, *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        assert r.returncode == 2, r.stderr
        assert "a memrel trace (it begins with MEMTRACE), not a backend file" in r.stderr, r.stderr
    subprocess.run([MEMREL, "-q", "run", "-b", "null", "-w", "temp-then-delete", "-o", "r.json"],
                   check=True, capture_output=True, cwd=tmp_path, timeout=120)
    r = subprocess.run([MEMREL, "advise", trace, "-b", "null", "--grid", "r.json", "--out", "ad"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert 'schema "memrel.results/1": another of memrel\'s files, not a grid file' in r.stderr, \
        r.stderr
    assert not (tmp_path / "ad").exists()


@needs_memrel
def test_a_sigterm_while_the_python_part_starts_is_said_as_a_stop_not_blamed_on_python(tmp_path):
    """c8-sigterm-at-part-start-blames-python: a SIGTERM to memrel alone while its Python part
    was starting said "<python> ended by SIGTERM", as if the interpreter had failed."""
    import shutil
    import signal
    import time

    (tmp_path / "r.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,08:00:00.000001,allocate,0x10,100,0x0\n")
    slow = tmp_path / "slowpy"
    slow.write_text('#!/bin/bash\nfor a; do case "$a" in *memrel_entry.py) sleep 3;; esac; done\n'
                    f'exec {shutil.which("python3")} "$@"\n')
    slow.chmod(0o755)
    p = subprocess.Popen([MEMREL, "trace", "import", "r.csv", "-o", "o.memtrace"], cwd=tmp_path,
                         env=dict(os.environ, MEMREL_PYTHON=str(slow)), stderr=subprocess.PIPE,
                         text=True)
    time.sleep(1.2)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, err
    assert "stopped by SIGTERM" in err and "ended by SIGTERM" not in err, err
    assert not (tmp_path / "o.memtrace").exists()


@needs_memrel
def test_a_planted_slowdown_that_is_not_a_number_is_shown_escaped_not_as_question_marks(tmp_path):
    """c4-slowdown-env-nonascii-shown-as-qmarks: MEMREL_EXAMPLE_SLOWDOWN_NS=<Arabic one> was
    shown as '??', a newline as '?'."""
    for value, shown in (("\u0661", "'\\u0661'"), ("a\nb", "'a\\nb'"), ("é", "'\\u00e9'")):
        r = subprocess.run([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w",
                            "temp-then-delete", "-o", "s.json"], capture_output=True, text=True,
                           cwd=tmp_path, env=dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS=value),
                           timeout=120)
        assert r.returncode == 2, r.stderr
        assert f"MEMREL_EXAMPLE_SLOWDOWN_NS: {shown} is not whole nanoseconds" in r.stderr, r.stderr
    assert not (tmp_path / "s.json").exists()


@needs_memrel
def test_a_whole_number_spelled_with_an_exponent_or_a_point_is_not_said_out_of_range(tmp_path):
    """c4-ab-rounds-1e1-said-out-of-range: `ab --rounds 1e1` (10) and `--rounds 5.0` were
    "Value 1e1 not in range 5 to 1000", untrue: it is the spelling that is refused."""
    for command in (["ab", "-b", "null", "--quick", "--looks", "1", "--out", "ab", "--rounds", "1e1"],
                    ["ab", "-b", "null", "--quick", "--out", "ab", "--rounds", "5.0"],
                    ["bench", "-b", "null", "--quick", "-o", "b", "--timeout", "1e1"]):
        r = subprocess.run([MEMREL, *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
        assert r.returncode == 2, r.stderr
        assert f"'{command[-1]}' is not a whole number" in r.stderr, r.stderr
        assert "not in range" not in r.stderr
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_report_refuses_a_copy_of_a_results_file_as_the_same_run_given_twice(tmp_path):
    """c6-report-byte-identical-copy: `report a.json copy.json` reported one run twice (#1, #2),
    where `history add` knows the copy as the same run (by its bytes)."""
    subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc,null", "-w", "temp-then-delete", "-o",
                    "a.json"], check=True, capture_output=True, cwd=tmp_path, timeout=120)
    (tmp_path / "copy.json").write_bytes((tmp_path / "a.json").read_bytes())
    r = subprocess.run([MEMREL, "report", "a.json", "copy.json", "--out", "rep"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "copy.json: the same run as a.json (the same bytes)" in r.stderr, r.stderr
    assert not (tmp_path / "rep").exists()
