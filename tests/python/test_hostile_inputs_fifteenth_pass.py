"""What the fifteenth adversarial pass of issue 23 found (docs/inputs.md, "Fifteenth pass"): each
test fails on the code before its fix."""

import json
import os
import subprocess

import pytest

from conftest import HOST_BENCH, HOST_RUN
from test_hostile_inputs import (MEMREL, RMM_LOG, needs_bench, needs_memrel, refused,
                                 scripts_module, WORKLOAD)


def under_ulimit_v(kib, args, cwd):
    return subprocess.run(["sh", "-c", f'ulimit -v {kib} && exec "$@"', "sh", MEMREL, "-q", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@needs_memrel
@pytest.mark.parametrize("kib", [15400, 16000, 17000])
@pytest.mark.parametrize("command", [["compare", HOST_RUN, HOST_RUN],
                                     ["history", "--db", "h.sqlite", "add", HOST_RUN]])
def test_running_out_in_memrels_own_code_is_one_line(tmp_path, kib, command):
    """c8-ulimit-v-compare-abort, c8-ulimit-v-history-add-abort: under `ulimit -v 15400` a
    results file's JSON ran memrel out of memory, and nlohmann::json, freeing the half-read
    document, ran out again in its destructor: std::terminate, SIGABRT, the runtime's two lines."""
    r = under_ulimit_v(kib, command, tmp_path)
    if r.returncode == 0:
        pytest.skip(f"fits in {kib} KiB here")
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "out of memory under an address-space limit" in lines[0], r.stderr
    assert not os.path.exists(tmp_path / "h.sqlite")


@needs_memrel
@pytest.mark.parametrize("files", [10, 12, 14])
def test_a_python_part_under_a_low_open_files_limit_is_not_taken_for_no_python(tmp_path, files):
    """c8-nofile-12-import-written-then-exit4: under `ulimit -n 12` the mark memrel_entry.py
    leaves was memrel's fd 3, close-on-exec, and its copy to 10 and above failed: the child lost
    it, and an import that had written its trace was "not a Python interpreter", exit 4."""
    r = subprocess.run(["sh", "-c", f'ulimit -n {files} && exec "$@"', "sh", MEMREL, "-q", "trace",
                        "import", "-o", "t.memtrace", RMM_LOG],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert "without running memrel's code" not in r.stderr, r.stderr
    assert r.returncode == 0 or (r.returncode == 4 and len(r.stderr.strip().splitlines()) == 1), \
        (r.returncode, r.stderr)
    assert os.path.exists(tmp_path / "t.memtrace") == (r.returncode == 0)


def interpreter_that_answers_the_probe(folder, then):
    """A stand-in for Python: says its version as memrel asks for it, then runs `then` (sh)."""
    fake = folder / "fp"
    fake.write_text('#!/bin/sh\ncase "$*" in *memrel-python-*) printf memrel-python-3.11; exit 0;; '
                    f'esac\n{then}\n')
    fake.chmod(0o755)
    return str(fake)


def run_with_interpreter(folder, variable, interpreter, *args):
    """memrel ARGS in FOLDER with the environment variable naming INTERPRETER."""
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=folder,
                          timeout=300, env=dict(os.environ, **{variable: interpreter}))


def said_it_ran_nothing_of_memrels(r):
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "without running memrel's code" in lines[0], r.stderr


@needs_memrel
def test_an_interpreter_that_fails_before_memrels_code_is_one_line(tmp_path):
    """c8-mempython-traceback-import: its own traceback, four lines, the last saying the Python
    part failed."""
    fake = interpreter_that_answers_the_probe(tmp_path, 'exec python3 -c "import nonexistent_zz"')
    said_it_ran_nothing_of_memrels(run_with_interpreter(tmp_path, "MEMREL_PYTHON", fake, "trace",
                                                        "import", "-o", "t.memtrace", RMM_LOG))
    assert not (tmp_path / "t.memtrace").exists()


@pytest.fixture
def history_of_two_runs(tmp_path):
    for name in ("r.json", "r2.json"):
        (tmp_path / name).write_text(open(HOST_RUN, encoding="utf-8").read())
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", "r.json", "r2.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    return tmp_path


@needs_memrel
@pytest.mark.parametrize("then", ['exec python3 -c "import nonexistent_zz"', "echo '{}'",
                                  "echo '[1]'", "exit 0"])
def test_a_history_interpreter_that_runs_nothing_of_memrels_is_refused_by_the_report(
        history_of_two_runs, then):
    """c8-histpython-*: its traceback went onto the report's pages, `{}` was taken for change
    points (exit 0), and nothing or `[1]` was "internal error: JSONDecodeError / TypeError"."""
    folder = history_of_two_runs
    fake = interpreter_that_answers_the_probe(folder, then)
    said_it_ran_nothing_of_memrels(run_with_interpreter(folder, "MEMREL_HISTORY_PYTHON", fake,
                                                        "report", "--out", "rep", "r.json",
                                                        "--history", "h.sqlite"))
    assert not (folder / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("where", ["scripts", "site-packages"])
def test_memrel_runs_from_its_own_or_the_interpreters_folder(tmp_path, where):
    """c3-cwd-is-scripts-folder, c3-cwd-is-site-packages-report: the working folder is never on
    the module path, but memrel's own folder and the interpreter's are not the user's: run from
    scripts/ every Python part was refused, and from site-packages the report lost matplotlib."""
    pytest.importorskip("matplotlib")
    import matplotlib
    folder = (os.path.join(os.path.dirname(MEMREL), "..", "..", "scripts") if where == "scripts"
              else os.path.dirname(os.path.dirname(matplotlib.__file__)))
    if where != "scripts" and "/.local/" in folder:
        pytest.skip("matplotlib is in the user's site-packages here, a user folder")
    r = subprocess.run([MEMREL, "-q", "report", "--out", str(tmp_path / "rep"), HOST_RUN],
                       capture_output=True, text=True, cwd=folder, timeout=300)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_advise_without_its_page_is_not_a_success(tmp_path):
    """c8-mempython-exit0-advise-memtrace: the page's Python part ran nothing of memrel's, the
    page was not written, and advise said exit 0 listing advise.html among its outputs."""
    r = subprocess.run([MEMREL, "-q", "trace", "import", "-o", "t.memtrace", RMM_LOG],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    fake = interpreter_that_answers_the_probe(tmp_path, "exit 0")
    r = subprocess.run([MEMREL, "-q", "advise", "t.memtrace", "-b", "host-malloc", "--out", "a"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, MEMREL_PYTHON=fake))
    assert r.returncode == 4, r.stderr
    assert "without running memrel's code" in r.stderr and "advise.html)" not in r.stderr
    assert not (tmp_path / "a" / "advise.html").exists()


@needs_bench
@pytest.mark.parametrize("setting", ["BENCHMARK_REPETITIONS=0", "BENCHMARK_REPETITIONS=-1",
                                     "BENCHMARK_MIN_TIME=nan", "BENCHMARK_FORMAT=csv",
                                     "BENCHMARK_TIME_UNIT=fs", "BENCHMARK_REPORT_AGGREGATES_ONLY=true",
                                     "BENCHMARK_MIN_WARMUP_TIME=1e999"])
def test_google_benchmarks_environment_obeys_the_bench_arg_rule(tmp_path, setting):
    """c4-bench-env-*: Google Benchmark reads BENCHMARK_X as --benchmark_x, and the values
    `--bench-arg` refuses came in that way: a file of no benchmarks with exit 0, a run that never
    ended, an abort taken for the backend's, "unavailable here"."""
    name, value = setting.split("=", 1)
    r = subprocess.run([MEMREL, "-q", "bench", "-b", "host-malloc", "--quick", "-o", "bo"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, **{name: value}))
    refused(r, setting, "Google Benchmark reads it as --benchmark_")
    assert os.listdir(tmp_path) == []


@needs_bench
@pytest.mark.parametrize("side", ["--reference-env", "--candidate-env"])
def test_ab_refuses_a_sides_google_benchmark_setting_it_would_refuse_as_an_argument(tmp_path, side):
    """c4-ab-candenv-min-time-nan-hangs, c4-ab-refenv-repetitions-0-passes: a round that never
    ended (ab has no timeout), and a gate of 0 compared benchmarks, exit 0."""
    r = subprocess.run([MEMREL, "-q", "ab", side, "BENCHMARK_REPETITIONS=0", "-b", "host-malloc",
                        "--quick", "--out", "abo"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, side, "BENCHMARK_REPETITIONS=0")
    assert os.listdir(tmp_path) == []


TINY_GROUP = {"schema": "memrel.workload/1", "name": "w", "description": "d",
              "steps": [{"alloc_many": "f", "sizes": [1048576], "until_device_fraction": 1e-12},
                        {"mark": "m"}, {"free_many": "f", "every": 1, "offset": 0},
                        {"release": True}]}


@needs_memrel
@pytest.mark.parametrize("command", [["validate", "w.json"],
                                     ["run", "-b", "host-malloc", "-w", "./w.json", "-o", "r.json"]])
def test_an_alloc_many_group_that_resolves_to_nothing_is_refused(tmp_path, command):
    """c4-workload-until-fraction-tiny-vanishes: until_device_fraction 1e-12 validated, and its
    alloc_many and free_many vanished from the run, exit 0 (device_fraction 1e-12 is refused)."""
    (tmp_path / "w.json").write_text(json.dumps(TINY_GROUP))
    refused(subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120), "w.json", "leaves the group empty on any device")
    assert os.listdir(tmp_path) == ["w.json"]


@needs_memrel
def test_a_mark_label_holding_the_repeat_sign_is_refused(tmp_path):
    """c6-mark-label-dedupe-collision-*: compare numbers a label's later marks "a#2"; a mark
    labelled "a#2" took the second "a"'s rows, and a growth there passed the gate."""
    workload = {"schema": "memrel.workload/1", "name": "markdup", "description": "d",
                "steps": [{"alloc": "x", "bytes": 4096}, {"mark": "a#2"}, {"mark": "a"},
                          {"mark": "a"}, {"free": "x"}]}
    (tmp_path / "w.json").write_text(json.dumps(workload))
    refused(subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", "./w.json", "-o",
                            "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120),
            "w.json", "'#'")


@needs_memrel
def test_results_whose_labels_hold_the_repeat_sign_compare_mark_by_mark(tmp_path):
    """Results another tool wrote may hold such labels: each mark keeps a key of its own, so the
    file compared with itself has no changed row, and a growth at any mark is one."""
    results = json.loads(open(HOST_RUN, encoding="utf-8").read())
    marks = results["cells"][0]["marks"]
    for mark, label in zip(marks, ["a#2", "a", "a"]):
        mark["label"] = label
    (tmp_path / "b.json").write_text(json.dumps(results))
    r = subprocess.run([MEMREL, "-q", "compare", "b.json", "b.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and "| improved |" not in r.stdout, r.stdout[-2000:]
    marks[2]["at"]["allocated"] += 120 << 20
    (tmp_path / "c.json").write_text(json.dumps(results))
    r = subprocess.run([MEMREL, "-q", "compare", "b.json", "c.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 1 and "mark a#3: allocated" in r.stdout, r.stdout[-2000:]


@needs_bench
def test_ab_with_a_filter_that_matches_nothing_is_one_line_and_leaves_no_folder(tmp_path):
    """c9-ab-bad-filter-leftover-and-two-lines: the progress line came first (two lines), and the
    folders made for --out's path (the default results/runs/) were left behind."""
    r = subprocess.run([MEMREL, "ab", "-b", "host-malloc", "--quick", "--rounds", "5", "--looks", "1",
                        "--filter", "^nomatch$", "--out", "made/for/o"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    refused(r, "--filter '^nomatch$'", "matches no benchmark")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("kind", ["folder", "file", "empty folder"])
def test_a_users_entry_where_the_earlier_report_moves_aside_is_refused_before_the_work(
        tmp_path, monkeypatch, kind):
    """c9-report-old-pid-*: with a user's rep.old-PID in the way (PID the report's own: pid
    reuse), the swap failed after all the work, exit 4 "internal error", and left the earlier
    report marked as being replaced, so that the user's copy of it was later removed as stale."""
    folder = scripts_module("memrel_report.folder")
    monkeypatch.chdir(tmp_path)
    os.makedirs("rep")
    (tmp_path / "rep" / folder.MARKER).write_text("")
    old = tmp_path / f"rep.old-{os.getpid()}"
    if kind == "file":
        old.write_text("mine")
    else:
        old.mkdir()
        if kind == "folder":
            (old / "NOTES.txt").write_text("mine")
    filled = []
    with pytest.raises(scripts_module("memrel_report.input_rules").InputError):
        folder.write_atomically("rep", filled.append)
    assert filled == []
    assert sorted(os.listdir(tmp_path / "rep")) == [folder.MARKER]
    assert old.exists() and sorted(os.listdir(tmp_path)) == sorted(["rep", old.name])


@needs_memrel
def test_run_finds_a_folders_workload_by_the_name_list_prints(tmp_path):
    """c10-workload-name-list-vs-w: `list` showed wd/a.json as temp-then-delete, and
    `-w temp-then-delete` was "unknown workload (known in wd: a)"."""
    os.makedirs(tmp_path / "wd")
    (tmp_path / "wd" / "a.json").write_text(open(WORKLOAD, encoding="utf-8").read())
    listed = subprocess.run([MEMREL, "--workloads-dir", "wd", "list", "--json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    names = [w["name"] for w in json.loads(listed.stdout)["workloads"]]
    assert names == ["temp-then-delete"], listed.stdout
    for given in ("temp-then-delete", "a"):
        r = subprocess.run([MEMREL, "-q", "--workloads-dir", "wd", "run", "-b", "host-malloc", "-w",
                            given, "-o", f"r-{given}.json"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "--workloads-dir", "wd", "run", "-b", "host-malloc", "-w",
                        "nope", "-o", "x.json"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=60)
    refused(r, "unknown workload 'nope'", "known in wd: temp-then-delete")


def shard(tmp_path, k, workload, *extra):
    r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc,host-malloc-retain", "-w", workload,
                        "--shard", f"{k}/2", "-o", f"s{k}.json", *extra], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_merge_refuses_shards_that_ran_other_contents_of_a_workload(tmp_path):
    """c6-merge-shards-workload-edited-between: the workload file was edited between two shards,
    and merge joined cells of two different workloads under one name, exit 0."""
    os.makedirs(tmp_path / "m")
    text = open(WORKLOAD, encoding="utf-8").read()
    (tmp_path / "m" / "w.json").write_text(text)
    shard(tmp_path, 1, "m/w.json")
    workload = json.loads(text)
    workload["description"] += " (edited)"
    (tmp_path / "m" / "w.json").write_text(json.dumps(workload))
    shard(tmp_path, 2, "m/w.json")
    refused(subprocess.run([MEMREL, "-q", "merge", "-o", "merged.json", "s1.json", "s2.json"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60),
            "workload_digests")
    assert not (tmp_path / "merged.json").exists()


@needs_memrel
def test_merge_refuses_another_zygote_use_which_results_record(tmp_path):
    """c5-merge-shards-different-zygote, c5-zygote-changed: cells forked from a zygote and cells
    exec'd (host figures differ) were mixed, in a merge and in a --resume, and no file said which."""
    shard(tmp_path, 1, "temp-then-delete", "--zygote", "all")
    shard(tmp_path, 2, "temp-then-delete", "--zygote", "none")
    refused(subprocess.run([MEMREL, "-q", "merge", "-o", "merged.json", "s1.json", "s2.json"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60), "zygote")
    results = json.loads((tmp_path / "s1.json").read_text())
    assert results["context"]["options"]["zygote"] == "all"


@needs_memrel
@pytest.mark.parametrize("order", ["results first", "benchmarks first"])
def test_history_keeps_a_run_cells_figures_and_a_benchmarks_apart(tmp_path, order):
    """c6-history-run-subject-equals-bench-subject: backend `pair` and a workload named
    "host-malloc/warm/512/manual_time" made the run cell's figures the series of memrel_bench's
    benchmark of that name: one series of two quantities, a -98% trend, exit 0."""
    pytest.importorskip("sqlite3")
    results = json.loads(open(HOST_RUN, encoding="utf-8").read())
    for cell in results["cells"]:
        cell["backend"], cell["workload"] = "pair", f"host-malloc/warm/512/manual_time{id(cell)}"
    results["cells"][0]["workload"] = "host-malloc/warm/512/manual_time"
    (tmp_path / "r.json").write_text(json.dumps(results))
    files = ["r.json", HOST_BENCH] if order == "results first" else [HOST_BENCH, "r.json"]
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", *files],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "one name, two kinds of figure")
    r = subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "list"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=60)
    assert "pair/host-malloc/warm/512/manual_time:" not in r.stdout
