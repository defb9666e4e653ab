"""What the forty-eighth adversarial pass of issue 23 found (docs/inputs.md, "Forty-eighth
pass"). Each test fails on the code before its fix."""

import json
import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

TRACE = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
USERS_TEXT = "my notes about the journal, not memrel's\n"


def memrel(tmp_path, *args):
    return subprocess.run([MEMREL, "-q", *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=180)


@needs_memrel
@pytest.mark.parametrize("command, journal", [
    (["run", "-b", "null", "-w", "temp-then-delete", "-o", "out.json"], "out.json.journal"),
    (["advise", TRACE, "-b", "host-malloc", "--out", "adv"], "adv/results.json.journal"),
])
def test_a_users_file_where_the_journal_goes_is_not_removed(tmp_path, command, journal):
    """c2-journal-foreign-file-deleted, c2-advise-journal-foreign-file-deleted: a file of one
    line that is not a journal, at the journal's place, was removed as "an interrupted run
    holding no cell" and the run went on."""
    (tmp_path / journal).parent.mkdir(exist_ok=True)
    (tmp_path / journal).write_text(USERS_TEXT)
    refused(memrel(tmp_path, *command), "is not a journal memrel wrote")
    assert (tmp_path / journal).read_text() == USERS_TEXT


@needs_memrel
def test_a_journal_header_alone_is_still_replaced(tmp_path):
    """The rule the test above narrows (the forty-sixth pass): memrel's own header with no cell
    after it is an interrupted run that holds nothing, replaced by a fresh run."""
    # A header as memrel writes it: the context first, then the schema.
    (tmp_path / "out.json.journal").write_text(
        '{"context":{},"schema":"memrel.journal/1"}\n')
    r = memrel(tmp_path, "run", "-b", "null", "-w", "temp-then-delete", "-o", "out.json")
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "out.json.journal").exists()
    assert (tmp_path / "out.json").stat().st_size > 0


@needs_memrel
@pytest.mark.parametrize("written", ["{}", '{"context": {}, "benchmarks": []}',
                                     '{"schema": "memrel.results/1"}'])
def test_bench_keeps_no_file_the_gate_would_refuse(tmp_path, written):
    """c8-bench-keeps-non-benchmark-json: a memrel_bench (here a wrapper given as --bench) that
    wrote `{}` as its results and exited 0 was "1 ok", its file kept; compare, history and the
    report then refused the folder. The backend has failed (exit 3), and no file is kept."""
    real = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    fake = tmp_path / "memrel_bench"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --help|--version|'
                    f'--benchmark_list_tests*) exec {real} "$@";; esac; done\n'
                    'for a in "$@"; do case "$a" in --benchmark_out=*) '
                    f"printf '%s' '{written}' > \"${{a#--benchmark_out=}}\";; esac; done\n"
                    'exit 0\n')
    fake.chmod(0o755)
    r = memrel(tmp_path, "bench", "-b", "host-malloc", "--bench", fake, "-o", "bo", "--quick",
               "--filter", "^pair/", "--min-time", "0.001")
    assert r.returncode == 3, r.stderr
    assert "not Google Benchmark's JSON" in r.stderr, r.stderr
    assert not os.path.exists(tmp_path / "bo" / "bench-host-malloc.json"), r.stderr


def _workload(path, name, steps):
    path.write_text(json.dumps({"schema": "memrel.workload/1", "name": name, "steps": steps}))


@needs_memrel
def test_validate_refuses_two_files_of_one_name_as_run_does(tmp_path):
    """c6-validate-passes-duplicate-names: `validate a.json b.json`, both named "w", said ok twice,
    exit 0; `run -w a.json,b.json` then refused them."""
    steps = [{"alloc": "x", "bytes": 4096}, {"free": "x"}]
    _workload(tmp_path / "a.json", "w", steps)
    _workload(tmp_path / "b.json", "w", steps)
    r = memrel(tmp_path, "validate", "a.json", "b.json")
    assert r.returncode == 2, r.stderr
    assert "'w' is both a.json and b.json" in r.stderr and "run -w would refuse" in r.stderr
    r = memrel(tmp_path, "validate", "a.json")
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_validate_says_where_a_group_outgrows_runs_step_limit(tmp_path):
    """c4-validate-passes-run-refuses-alloc-many: a group of 1-byte blocks until a quarter of the
    capacity was "ok"; run refused it ("expands to more than 1000000 steps") at a host backend's
    1 GiB. validate knows no device: it says the capacity past which run refuses the file."""
    _workload(tmp_path / "g.json", "g",
              [{"alloc_many": "g", "sizes": [1], "until_device_fraction": 0.25}])
    r = memrel(tmp_path, "validate", "g.json")
    assert r.returncode == 0, r.stderr
    # 1,000,000 blocks of 1 byte are a quarter of 4,000,000 bytes; 4,000,003 still floors to it.
    assert "up to a capacity of 4000003 bytes" in r.stdout, r.stdout
    assert "run refuses it" in r.stdout, r.stdout
    refused(memrel(tmp_path, "run", "-b", "host-malloc", "-w", "g.json", "-o", "r.json"),
            "expands to more than 1000000 steps")
