"""What the seventy-seventh adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-seventh pass"). Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_bench, needs_memrel, refused

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")

BENCH = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")


def _cutting_bench(tmp_path):
    """A memrel_bench that runs the real one, then cuts its JSON to 300 bytes and exits 0: what
    a full disk or `ulimit -f` does to a file mid-write."""
    wrapper = tmp_path / "cutbench"
    wrapper.write_text(f"""#!/bin/bash
for a in "$@"; do [ "$a" = --help ] && exec {BENCH} --help; done
out=; for a in "$@"; do case $a in --benchmark_out=*) out="${{a#--benchmark_out=}}";; esac; done
{BENCH} "$@"; truncate -s 300 "$out"; echo "the last line of the cut run"; exit 0
""")
    wrapper.chmod(0o755)
    return str(wrapper)


def _exit_4_keeping_the_log(r, log):
    assert r.returncode == 4, (r.returncode, r.stderr)
    assert "cut off" in r.stderr, r.stderr
    assert log.is_file(), sorted(p.name for p in log.parent.iterdir())
    assert "the last line of the cut run" in log.read_text()
    assert not [p for p in log.parent.iterdir() if ".tmp-" in p.name]


@needs_bench
def test_bench_keeps_the_log_of_a_run_whose_results_were_cut_off(tmp_path):
    """c8-bench-cut-json-loses-log: `bench --logs L` of a memrel_bench whose JSON was cut off said
    so, exit 4, and L/bench-null.log was never written (the folder, made for it, removed), where
    docs/inputs.md puts the log in place always (a failing bench, exit 3, keeps it)."""
    r = subprocess.run([MEMREL, "bench", "-q", "-b", "null", "--quick", "--filter", "^pair/",
                        "--bench", _cutting_bench(tmp_path), "-o", "out", "--logs", "logs"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    _exit_4_keeping_the_log(r, tmp_path / "logs" / "bench-null.log")
    assert not (tmp_path / "out" / "bench-null.json").exists()


@needs_bench
def test_ab_keeps_the_round_log_of_a_candidate_whose_results_were_cut_off(tmp_path):
    """c8-ab-cut-json-loses-round-log: the same in ab: the reference's round log was kept and the
    candidate's, whose JSON was cut off, never written."""
    r = subprocess.run([MEMREL, "ab", "-q", "-b", "null", "--quick", "--filter", "^pair/null/warm/",
                        "--rounds", "5", "--looks", "1", "--candidate-bench",
                        _cutting_bench(tmp_path), "--out", "abo"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    _exit_4_keeping_the_log(r, tmp_path / "abo" / "rounds" / "candidate-null-1.log")
    assert (tmp_path / "abo" / "rounds" / "reference-null-1.log").is_file()


def _a_pickle(tmp_path, name):
    import pickle
    with open(tmp_path / name, "wb") as f:
        pickle.dump({"device_traces": [[]], "segments": []}, f)


@needs_memrel
@pytest.mark.parametrize("command,where", [(["compare", "c", "c"], "c/run.json"),
                                           (["merge", "-o", "m.json", "s.json", "s.json"],
                                            "s.json"),
                                           (["report", "--out", "rep", "s.json"], "s.json"),
                                           (["run", "-b", "./s.json", "-w", "temp-then-delete",
                                             "-o", "r.json"], "./s.json")],
                         ids=["compare", "merge", "report", "backend-file"])
def test_a_pickle_where_a_json_document_goes_is_named_a_pickle(tmp_path, command, where):
    """Noted by a tester: a pickle given as a results file was "malformed JSON at byte 5: a NUL
    byte" (compare, merge), "not UTF-8 text (byte 0)" (report). Named by its first bytes, as the
    importer tells one."""
    (tmp_path / "c").mkdir()
    _a_pickle(tmp_path, "c/run.json")
    _a_pickle(tmp_path, "s.json")
    refused(subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120), where, "a Python pickle (it begins with PROTO",
            "memrel trace import")


@needs_memrel
@pytest.mark.parametrize("command", [["advise", "-q", "{}", "--out", "a"],
                                     ["run", "-q", "-b", "host-malloc", "-w", "{}", "-o", "r.json"],
                                     ["validate", "{}"]], ids=["advise", "run", "validate"])
@pytest.mark.parametrize("name", ["h.sqlite", "h.memtrace"])
def test_a_history_where_a_trace_goes_is_named_a_history(tmp_path, command, name):
    """Noted by a tester: a history given to advise was "not a trace (.memtrace), a PyTorch
    snapshot (.pickle) or an RMM log (.csv)", and named *.memtrace "no MEMTRACE magic: import it
    with `memrel trace import`", which takes no history."""
    subprocess.run([MEMREL, "history", "--db", name, "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    args = [a.replace("{}", name) for a in command]
    refused(subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120), name, "an SQLite database", "history --db")
