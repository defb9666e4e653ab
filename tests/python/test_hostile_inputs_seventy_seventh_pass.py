"""What the seventy-seventh adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-seventh pass"). Each test fails on the code before its fix."""

import os
import subprocess

from test_hostile_inputs import MEMREL, needs_bench

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
