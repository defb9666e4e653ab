"""What the forty-ninth adversarial pass of issue 23 found (docs/inputs.md, "Forty-ninth pass").
Each test fails on the code before its fix."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")
TRACE = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
REAL_BENCH = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
NOT_OURS = "is not a journal memrel wrote"


def memrel(tmp_path, *args, env=None, limit=None):
    """memrel -q ARGS in TMP_PATH; LIMIT: a shell line run first (`ulimit -n 8`)."""
    command = [MEMREL, "-q", *map(str, args)]
    if limit:
        command = ["bash", "-c", limit + '; exec "$@"', "bash", *command]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=env)


def pretty_results(path):
    shutil.copy(HOST_RUN, path)
    with open(HOST_RUN) as f:
        path.write_text(json.dumps(json.load(f), indent=2))


@needs_memrel
@pytest.mark.parametrize("left", ["trace", "pretty results", "one-line results"])
@pytest.mark.parametrize("resume", [False, True])
def test_a_file_at_the_journals_place_is_told_by_its_content(tmp_path, left, resume):
    """c10-journal-trace-called-interrupted-run, c10-resume-journal-results-file: a trace or a
    pretty-printed results file there was "the journal of an interrupted run: continue it with
    --resume", and --resume said "malformed JSON"; a one-line results file was "holds no cell:
    run again without --resume", which then refused it. One answer, the file kept."""
    journal = tmp_path / "x.json.journal"
    if left == "trace":
        shutil.copy(TRACE, journal)
    elif left == "pretty results":
        pretty_results(journal)
    else:
        with open(HOST_RUN) as f:
            journal.write_text(json.dumps(json.load(f)) + "\n")
    before = journal.read_bytes()
    refused(memrel(tmp_path, "run", "-b", "null", "-w", WORKLOAD, "-o", "x.json",
                   *(["--resume"] if resume else [])), NOT_OURS)
    assert journal.read_bytes() == before


@needs_memrel
@pytest.mark.parametrize("resume", [False, True])
def test_advise_tells_a_file_at_its_journals_place_by_its_content(tmp_path, resume):
    """c10-advise-journal-not-told: a trace at `--out D`'s results.json.journal was "the journal
    of an interrupted advise: continue it with --resume", which said "malformed JSON"."""
    (tmp_path / "d").mkdir()
    shutil.copy(TRACE, tmp_path / "d" / "results.json.journal")
    refused(memrel(tmp_path, "advise", TRACE, "-b", "host-malloc", "--out", "d",
                   *(["--resume"] if resume else [])), NOT_OURS)


@needs_memrel
@pytest.mark.parametrize("command", [["compare", HOST_RUN, "J"], ["merge", "-o", "m.json", "J",
                                                                  HOST_RUN],
                                     ["history", "--db", "h.sqlite", "add", "J"],
                                     ["report", "--out", "rep", "J"]])
def test_a_journal_given_as_results_is_named_as_one(tmp_path, command):
    """c10-journal-as-results: "malformed JSON at byte 1669: [json.exception.parse_error.101]"
    (the report: "Extra data"), where a trace given so is named as a trace."""
    header = {"context": {"started": "2026-12-06T00:00:00Z"}, "run": {}, "schema": "memrel.journal/1"}
    (tmp_path / "J").write_text(json.dumps(header) + "\n" + '{"index": 0, "cell": {}}\n')
    refused(memrel(tmp_path, *command), "a memrel journal", "finish that run with --resume")


def _workload(path, name):
    path.write_text(json.dumps({"schema": "memrel.workload/1", "name": name,
                                "steps": [{"alloc": "x", "bytes": 4096}, {"free": "x"}]}))


@needs_memrel
def test_report_names_the_file_each_colliding_name_came_from(tmp_path):
    """c6-report-twin-wrong-file: two names of one report page from two files were said as if
    the first file held both."""
    for name, out in (("a b", "ra.json"), ("a_b-c8687a08", "rb.json")):
        _workload(tmp_path / "w.json", name)
        r = memrel(tmp_path, "run", "-b", "null", "--include-null", "-w", "w.json", "-o", out)
        assert r.returncode == 0, r.stderr
    refused(memrel(tmp_path, "report", "--out", "rep", "ra.json", "rb.json"),
            "'a b' (ra.json)", "'a_b-c8687a08' (rb.json)")


@needs_memrel
def test_list_marks_two_workload_files_of_one_name(tmp_path):
    """c6-list-duplicate-workloads-silent: listed twice without a word, where run refuses them."""
    (tmp_path / "wd").mkdir()
    _workload(tmp_path / "wd" / "a.json", "same")
    _workload(tmp_path / "wd" / "b.json", "same")
    r = memrel(tmp_path, "--workloads-dir", "wd", "list")
    assert r.returncode == 0, r.stderr
    marked = [line for line in r.stdout.splitlines() if "INVALID" in line]
    assert len(marked) == 1 and "'same' is both" in marked[0], r.stdout


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "null", "--include-null", "-w", WORKLOAD,
                                      "-o", "a.json"],
                                     ["bench", "-b", "null", "--quick", "--filter", "^pair/",
                                      "-o", "out"]])
def test_no_child_writes_on_memrels_stdout_under_a_low_open_files_limit(tmp_path, command):
    """c9-run-emfile-git-on-stdout, c9-bench-emfile-child-stdout: under `ulimit -n 8` a child's
    stdout that could not be set up stayed memrel's own: git's commit and memrel_bench's names
    landed before the one line scripts read. Now such a child does not start, and says why."""
    r = memrel(tmp_path, *command, limit="ulimit -n 8")
    lines = r.stdout.splitlines()
    assert len(lines) <= 1, r.stdout[:2000]
    if r.returncode != 0:
        assert r.returncode == 4 and "ulimit -n" in r.stderr, (r.returncode, r.stderr)


@needs_memrel
def test_a_low_open_files_limit_is_named_not_the_installation(tmp_path):
    """c9-list-emfile-probe-stdout, c9-run-emfile-internal-error: "memrel's installation is
    incomplete" and "internal error: cannot make a pipe" at `ulimit -n 5` to 7."""
    r = memrel(tmp_path, "list", limit="ulimit -n 5")
    assert r.returncode == 4, r.stderr
    assert "the open-files limit, ulimit -n, is 5" in r.stderr, r.stderr
    assert "installation" not in r.stderr, r.stderr


@needs_memrel
def test_history_takes_no_interpreter_from_a_cache_folder_that_is_the_working_folder(tmp_path):
    """c3-xdg-cache-proc-self-cwd-runs-cwd-interpreter: XDG_CACHE_HOME=/proc/self/cwd (an absolute
    spelling of "."), and history ran ./memrel/otava/bin/python."""
    planted = tmp_path / "memrel" / "otava" / "bin" / "python"
    planted.parent.mkdir(parents=True)
    planted.write_text(f'#!/bin/sh\ntouch "{tmp_path}/RAN"\nexec python3 "$@"\n')
    planted.chmod(0o755)
    for spelling in ("/proc/self/cwd", str(tmp_path)):
        memrel(tmp_path, "history", "--db", "h.sqlite", "changes",
               env=dict(os.environ, XDG_CACHE_HOME=spelling))
        assert not (tmp_path / "RAN").exists(), spelling


def _fake_bench(tmp_path, then):
    """A memrel_bench that answers the probes as the real one and then runs THEN (sh)."""
    fake = tmp_path / "fake_bench"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --help|--version|'
                    f'--benchmark_list_tests*) exec {REAL_BENCH} "$@";; esac; done\n'
                    'for a in "$@"; do case "$a" in --benchmark_out=*) out="${a#--benchmark_out=}";; '
                    'esac; done\n' + then + "\n")
    fake.chmod(0o755)
    return fake


@needs_memrel
@pytest.mark.parametrize("then, said", [('mkfifo "$out"; exit 0', "it left a FIFO there"),
                                        ('printf notjson > "$out"; exit 0', "not JSON"),
                                        ('mkdir "$out"; exit 0', "it left a folder there")])
def test_bench_output_that_is_no_results_file_is_the_backends_failure(tmp_path, then, said):
    """c8-bench-fifo-output-blamed-on-filter, c8-bench-non-json-output-said-full-disk: a FIFO left
    at the output was "--filter matches no benchmark", exit 2; text that is no JSON was "cut
    off ... a full disk?", exit 4. Both are the backend's failure, exit 3."""
    fake = _fake_bench(tmp_path, then)
    r = memrel(tmp_path, "bench", "-b", "null", "--bench", fake, "--quick", "--filter", "^pair/",
               "-o", "out")
    assert r.returncode == 3, r.stderr
    assert said in r.stderr and "full disk" not in r.stderr, r.stderr


@needs_memrel
def test_an_ab_candidate_that_runs_no_benchmark_is_its_failure_not_the_filters(tmp_path):
    """c8-ab-candidate-without-benchmarks-blamed-on-filter: a candidate that wrote the empty file
    of "no benchmark matched" was "--filter matches no benchmark of null", exit 2, though the
    reference's matched it."""
    fake = _fake_bench(tmp_path, ': > "$out"; exit 0')
    r = memrel(tmp_path, "ab", "-b", "null", "--quick", "--filter", "^pair/null/warm/",
               "--rounds", "5", "--looks", "1", "--candidate-bench", fake, "--out", "ab")
    assert r.returncode == 1, r.stderr
    # Said as the candidate's failure since the sixty-ninth pass: it lists benchmarks of the filter
    # when asked, and ran none.
    assert "the candidate null failed in round 1" in r.stderr, r.stderr
    assert "ran no benchmark, though it lists" in r.stderr, r.stderr


def _max_rss_kib(command, cwd, env=None):
    """The most memory (KiB) COMMAND or a process it waited for held, measured in a process of
    its own so that no earlier child counts."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True,
                         cwd=cwd, env=env, timeout=300).stdout.split()
    return int(out[0]), int(out[1])


@needs_memrel
def test_bench_holds_no_failing_benchmarks_whole_output(tmp_path):
    """c8-bench-output-held-whole-in-memory: without --logs only a failure's last line is kept,
    yet 2.4 GB printed by a failing memrel_bench took memrel to 4.2 GB."""
    fake = _fake_bench(tmp_path, "head -c 300000000 /dev/zero | tr '\\0' x; echo; "
                                 "echo 'last words' >&2; exit 1")
    rc, rss = _max_rss_kib([MEMREL, "-q", "bench", "-b", "null", "--bench", str(fake), "--quick",
                            "--filter", "^pair/", "-o", "out"], tmp_path)
    assert rc == 3
    assert rss < 150_000, f"{rss} KiB for 300 MB of a benchmark's output"


@needs_memrel
def test_a_python_parts_stderr_is_passed_on_not_held_whole(tmp_path):
    """c8-python-part-stderr-held-whole: an interpreter printing 200 MB on stderr before the part
    began took memrel to 398 MB and 15 s (each read searched the whole line again)."""
    log = tmp_path / "log.csv"
    log.write_text("Thread,Time,Action,Pointer,Size,Stream\n1,08:00:00.000001,allocate,0x10,4,0x1\n")
    spew = tmp_path / "spew-python"
    spew.write_text('#!/bin/bash\ncase "$*" in *-c*) exec python3 "$@";; esac\n'
                    'head -c 200000000 /dev/zero | tr "\\0" x >&2; exec python3 "$@"\n')
    spew.chmod(0o755)
    rc, rss = _max_rss_kib([MEMREL, "-q", "trace", "import", str(log), "-o", "t.memtrace"],
                           tmp_path, env=dict(os.environ, MEMREL_PYTHON=str(spew)))
    assert rc == 0
    assert rss < 150_000, f"{rss} KiB for 200 MB of the part's stderr"
