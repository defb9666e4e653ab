"""What the fifty-second adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-second pass"). Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel
from test_hostile_inputs_thirty_seventh_pass import _chattr, attributes_cleared  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "..", "..", "benchmarks", "workloads")
TRACE = os.path.join(WORKLOADS, "trace-rmm-log-convnet-on-rmm-pool.memtrace")


@needs_memrel
@pytest.mark.parametrize("flag, words", [("+a", "is append-only (chattr +a)"),
                                         ("+i", "is immutable (chattr +i)")])
@pytest.mark.parametrize("command", ["run", "advise"])
def test_a_journal_that_cannot_be_continued_in_place_is_refused_before_the_resume(
        tmp_path, attributes_cleared, flag, words, command):
    """c2-resume-journal-append-only, c2-advise-resume-journal-append-only: `--resume` of a
    journal marked chattr +a or +i was exit 4, "internal error: ...: cannot cut to its last whole
    record (Operation not permitted)"."""
    if command == "run":
        journal = tmp_path / "a.json.journal"
        args = ["run", "-b", "null", "-w", "temp-then-delete", "-o", "a.json", "--resume"]
    else:
        (tmp_path / "adv").mkdir()
        journal = tmp_path / "adv" / "results.json.journal"
        args = ["advise", TRACE, "-b", "null", "--out", "adv", "--resume"]
    journal.write_text('{"context":{}}\n')
    attributes_cleared.append(journal)
    _chattr(flag, journal)
    r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert f"{journal.relative_to(tmp_path)}: {words}: a journal is continued in place" in r.stderr, \
        r.stderr
    assert journal.read_text() == '{"context":{}}\n'


@needs_memrel
def test_report_escapes_a_newline_in_a_path_or_name_it_refuses(tmp_path):
    """c9-report-newline-as-space: `report --out 'ff/nl/a<newline>b'` said "ff/nl/a b", and
    `--timeline` "no cell 'nl/a b'": another path and name than the ones given."""
    subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                    "r.json"], check=True, capture_output=True, cwd=tmp_path, timeout=120)
    (tmp_path / "ff").write_text("")
    r = subprocess.run([MEMREL, "-q", "report", "r.json", "--out", "ff/nl/a\nb"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2 and "ff/nl/a\\nb" in r.stderr, r.stderr
    r = subprocess.run([MEMREL, "-q", "report", "r.json", "--timeline", "nl/a\nb", "--out", "rq"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2 and "'nl/a\\nb'" in r.stderr, r.stderr
    assert not (tmp_path / "rq").exists()


@needs_memrel
def test_a_report_under_a_low_open_files_limit_draws_with_the_workers_it_has_room_for(tmp_path):
    """c8-report-nofile-14-to-22-fails-13-works: under `ulimit -n` 12 or 13 the report drew in
    its own process and was written; from 14 to 22 it started a pool that ran out of descriptors,
    exit 4. Raising the limit broke it."""
    import resource

    from conftest import host_subset

    run = host_subset(tmp_path, {"temp-then-delete", "del-without-release"})
    for limit in (15, 19):
        def limited(limit=limit):
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        r = subprocess.run([MEMREL, "-q", "report", run, "--out", f"rep{limit}"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300,
                           preexec_fn=limited)
        assert r.returncode == 0, (limit, r.stderr)
        assert (tmp_path / f"rep{limit}" / "index.html").is_file()


@needs_memrel
def test_a_cell_result_cut_by_the_file_size_limit_names_the_limit(tmp_path):
    """c8-ulimit-f-cell-result-blames-tmpdir: under `ulimit -f 129` (past the 64 KiB TMPDIR
    check) a cell's result hit the limit and the run said "is TMPDIR full or unwritable?"."""
    r = subprocess.run(["bash", "-c", f"ulimit -f 129; exec {MEMREL} run -b host-malloc -w "
                                      "temp-then-delete-x100 -o r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 4, r.stderr
    assert "the file size limit (ulimit -f) is 132096 bytes" in r.stderr, r.stderr
    assert "TMPDIR" not in r.stderr


@needs_memrel
def test_a_python_wrapper_that_closes_memrels_descriptor_runs_nothing(tmp_path):
    """c8-python-wrapper-closes-fd3-output-left-exit4: a MEMREL_PYTHON wrapper that ran Python
    with the descriptor memrel hears the part's end on closed: the trace was written, and memrel
    said the part "exited 0 without running memrel's code", exit 4, the trace left in place."""
    import sys

    (tmp_path / "r.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,08:00:00.000001,allocate,0x10,100,0x0\n")
    wrapper = tmp_path / "w"
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *memrel_entry*) exec {sys.executable} "$@" 3>&- ;;'
                       f' esac\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    r = subprocess.run([MEMREL, "trace", "import", "r.csv", "-o", "x.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_PYTHON=str(wrapper)))
    assert r.returncode == 4, r.stderr
    assert "does MEMREL_PYTHON close it? nothing run" in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert not (tmp_path / "x.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("size", ["8192TiB", "9007199254740993", "18446744073709551616"])
def test_a_size_too_large_is_said_too_large_not_not_positive(tmp_path, size):
    """c4-host-capacity-too-large-said-not-positive: `--host-capacity 8192TiB` was "is not a
    positive size"."""
    r = subprocess.run([MEMREL, "run", "-b", "host-malloc", "-w", "single-large", "-o", "r.json",
                        "--host-capacity", size], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.returncode == 2, r.stderr
    assert f"'{size}' is more than the" in r.stderr and "positive" not in r.stderr, r.stderr


@needs_memrel
def test_a_report_of_a_history_alone_prints_no_empty_verdict_table(tmp_path):
    """c9-report-history-only-bare-question-line: `report --history h.sqlite` without results
    printed a lone "question" line, the header of a table with no verdicts."""
    run = os.path.join(HERE, "..", "data", "host-run.json")
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", run], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    r = subprocess.run([MEMREL, "report", "--history", "h.sqlite", "--out", "rep"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "question" not in (r.stdout + r.stderr).split(), (r.stdout, r.stderr)


@needs_memrel
def test_a_name_that_is_a_web_address_is_no_link_in_markdown(tmp_path):
    """c9-bare-url-autolinks-in-markdown: a workload named https://evil.example/x was written
    as it is into compare's Markdown table and report.md, where GitHub links a bare address."""
    import json

    (tmp_path / "w.json").write_text(json.dumps({
        "schema": "memrel.workload/1", "name": "https://evil.example/x", "description": "d",
        "steps": [{"alloc": "x", "bytes": 4096}, {"free": "x"}]}))
    for out in ("a.json", "b.json"):
        subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", "w.json", "-o", out],
                       check=True, capture_output=True, cwd=tmp_path, timeout=120)
    r = subprocess.run([MEMREL, "compare", "a.json", "b.json", "--markdown", "c.md"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    md = (tmp_path / "c.md").read_text()
    assert "https\\://evil.example/x" in md and "https://evil" not in md, md
    subprocess.run([MEMREL, "-q", "report", "a.json", "--out", "rep"], check=True,
                   capture_output=True, cwd=tmp_path, timeout=300)
    assert "https://evil" not in (tmp_path / "rep" / "report.md").read_text()
