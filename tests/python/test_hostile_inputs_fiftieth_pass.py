"""What the fiftieth adversarial pass of issue 23 found (docs/inputs.md, "Fiftieth pass"). Each
test fails on the code before its fix."""

import json
import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused
from test_hostile_inputs_forty_ninth_pass import _fake_bench

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")
WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
JOURNAL = json.dumps({"context": {"started": "2026-12-06T00:00:00Z"}, "run": {},
                      "schema": "memrel.journal/1"}) + "\n" + '{"index": 0, "cell": {}}\n'


def memrel(tmp_path, *args, env=None):
    return subprocess.run([MEMREL, "-q", *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env=env)


@needs_memrel
def test_history_refuses_a_match_that_is_not_utf8_in_one_line(tmp_path):
    """c9-history-changes-match-non-utf8-traceback: `--match $'\\xff'` reached SQLite: a 24-line
    traceback, exit 4."""
    assert memrel(tmp_path, "run", "-b", "null", "--include-null", "-w", WORKLOAD, "-o",
                  "r.json").returncode == 0
    assert memrel(tmp_path, "history", "--db", "h.sqlite", "add", "r.json").returncode == 0
    r = subprocess.run([MEMREL, "history", "--db", "h.sqlite", "changes", "--match",
                        os.fsdecode(b"\xff")], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    refused(r, "--match", "not UTF-8 text")


def _append_only(folder):
    folder.mkdir()
    if subprocess.run(["chattr", "+a", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +a does not work here (not root, or the file system has no flags)")


@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-b", "null", "--include-null", "-w", WORKLOAD, "-o", "A/sub/x.json"],
    ["bench", "-b", "null", "--quick", "--filter", "^pair/null/warm/512", "-o", "A/sub/b"],
    ["bench", "-b", "null", "--quick", "--filter", "^pair/null/warm/512", "-o", "ok", "--logs",
     "A/sub/l"],
])
def test_nothing_is_made_in_an_append_only_folder(tmp_path, command):
    """c2-run-appendonly-grandparent-probe-left, c2-bench-ab-appendonly-grandparent-folder-left,
    c2-bench-logs-appendonly-grandparent: run's probe and bench's folders were made in an
    append-only folder, where nothing can be removed again."""
    _append_only(tmp_path / "A")
    try:
        refused(memrel(tmp_path, *command), "is append-only (chattr +a)")
        assert os.listdir(tmp_path / "A") == []
        assert sorted(os.listdir(tmp_path)) == ["A"]
    finally:
        subprocess.run(["chattr", "-a", str(tmp_path / "A")])


@needs_memrel
def test_bench_without_a_filter_that_runs_nothing_is_the_backends_failure(tmp_path):
    """c8-bench-empty-output-blamed-on-filter: "no filter: matches no benchmark", exit 2."""
    fake = _fake_bench(tmp_path, ': > "$out"; exit 0')
    r = memrel(tmp_path, "bench", "-b", "null", "--bench", fake, "--quick", "-o", "out")
    assert r.returncode == 3, r.stderr
    assert "ran no benchmark, though no filter was given" in r.stderr, r.stderr


@needs_memrel
def test_ab_reference_without_a_filter_that_runs_nothing_is_its_failure(tmp_path):
    """c8-ab-reference-empty-output-blamed-on-filter: "--filter '' matches no benchmark", exit 2,
    of a filter never given; the reference failing is exit 4."""
    fake = _fake_bench(tmp_path, ': > "$out"; exit 0')
    r = memrel(tmp_path, "ab", "-b", "null", "--quick", "--rounds", "5", "--looks", "1",
               "--reference-bench", fake, "--out", "ab")
    refused(r, "the reference null failed in round 1", "no filter was given", exit_code=4)


@needs_memrel
@pytest.mark.parametrize("kept", ["a.json.journal", "h.sqlite"])
def test_report_does_not_replace_a_folder_holding_what_no_report_wrote(tmp_path, kept):
    """c5-report-out-deletes-run-journal, c5-report-out-deletes-other-outputs: an interrupted
    run's journal and a history database put in a report folder were removed with it when the
    next report replaced it, exit 0."""
    assert memrel(tmp_path, "report", "--out", "rep", HOST_RUN).returncode == 0
    (tmp_path / "rep" / kept).write_text("mine\n")
    refused(memrel(tmp_path, "report", "--out", "rep", HOST_RUN), f"holds {kept}",
            "which no report wrote")
    assert (tmp_path / "rep" / kept).read_text() == "mine\n"
    (tmp_path / "rep" / kept).unlink()
    assert memrel(tmp_path, "report", "--out", "rep", HOST_RUN).returncode == 0


@needs_memrel
@pytest.mark.parametrize("command", [["validate", "J"], ["run", "-b", "null", "--include-null",
                                                         "-w", "J", "-o", "r.json"]])
def test_a_journal_given_as_a_workload_is_named_as_one(tmp_path, command):
    """c10-validate-run-journal-as-malformed-json: "malformed JSON at byte 2170: [json.exception
    ...]", where compare and report name it."""
    (tmp_path / "J").write_text(JOURNAL)
    refused(memrel(tmp_path, *command), "a memrel journal", "finish that run with --resume")


@needs_memrel
def test_ab_refuses_an_environment_name_given_twice(tmp_path):
    """c6-ab-env-name-twice: the process got the second value, the results recorded both."""
    refused(memrel(tmp_path, "ab", "-b", "null", "--quick", "--out", "ab", "--reference-env",
                   "MEMREL_EXAMPLE_SLOWDOWN_NS=1", "--reference-env",
                   "MEMREL_EXAMPLE_SLOWDOWN_NS=2"), "MEMREL_EXAMPLE_SLOWDOWN_NS: given twice")
    assert not (tmp_path / "ab").exists()


@needs_memrel
@pytest.mark.parametrize("shard, said", [("1/99999999999999999999", "N must be at most 2^53"),
                                         ("01/02", "without a leading zero"),
                                         ("1/02", "without a leading zero")])
def test_shard_numbers_are_read_as_every_whole_number(tmp_path, shard, said):
    """c4-shard-huge-n-wrong-words: a 20-digit N was "not a whole number of at least 1", and
    01/02 was taken where every other whole number refuses a leading zero."""
    refused(memrel(tmp_path, "run", "-b", "null", "--include-null", "-w", WORKLOAD, "-o",
                   "r.json", "--shard", shard), said)


@needs_memrel
def test_a_bench_stopped_from_outside_leaves_no_temporary_file(tmp_path):
    """c8-bench-stopped-leaves-tmp: a memrel_bench stopped (SIGSTOP) when its timeout ran out
    was said so, exit 4, and its bench-NAME.json.tmp-PID stayed in the folder."""
    fake = _fake_bench(tmp_path, 'printf \'{"context": \' > "$out"; kill -STOP $$')
    r = memrel(tmp_path, "bench", "-b", "null", "--bench", fake, "--quick", "--timeout", "2",
               "-o", "out", "--logs", "logs")
    assert r.returncode == 4 and "stopped from outside" in r.stderr, r.stderr
    left = [name for folder in ("out", "logs") if (tmp_path / folder).exists()
            for name in os.listdir(tmp_path / folder)]
    assert not [name for name in left if ".tmp-" in name], left
