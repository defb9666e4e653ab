"""What the fifty-eighth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-eighth pass"). Each test fails on the code before its fix."""

import json
import os
import subprocess
import sys

import pytest

from test_hostile_inputs import MEMREL, memrel_bench_binary, needs_memrel

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_RUN = os.path.join(HERE, "..", "data", "host-run.json")
HOST_BENCH = os.path.join(HERE, "..", "data", "host-bench.json")
TRACE = os.path.join(HERE, "..", "..", "benchmarks", "workloads",
                     "trace-rmm-log-convnet-on-rmm-pool.memtrace")
RMM_LOG = os.path.join(HERE, "..", "..", "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def refused(r, *words):
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


@needs_memrel
@pytest.mark.parametrize("command", ["bench", "ab"])
@pytest.mark.parametrize("value", ["0.1s", "1_0", "\u0661"])
def test_a_misspelled_decimal_is_said_so_not_out_of_range(tmp_path, command, value):
    """c4-min-time-misspelled-said-out-of-range: `--min-time 0.1s` was "Value 0.1s not in range
    0.000001 to 86400.000000", untrue of 0.1."""
    r = subprocess.run([MEMREL, command, "-b", "null", "--min-time", value,
                        "--out" if command == "ab" else "-o", "o"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, f"--min-time: '{value}' is not a decimal number")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("how", ["results", "bench", "both"])
def test_the_report_refuses_a_file_of_both_kinds_as_the_gate_does(tmp_path, how):
    """c10-both-kinds-report-takes-what-gate-refuses: a file with "schema" and "benchmarks" is
    refused by compare and history add as ambiguous; the report drew it as a results file, as
    --bench, and as both at once."""
    with open(HOST_RUN) as f:
        doc = json.load(f)
    with open(HOST_BENCH) as f:
        doc["benchmarks"] = json.load(f)["benchmarks"]
    (tmp_path / "f.json").write_text(json.dumps(doc))
    args = {"results": ["f.json"], "bench": [HOST_RUN, "--bench", "f.json"],
            "both": ["f.json", "--bench", "f.json"]}[how]
    r = subprocess.run([MEMREL, "-q", "report", *args, "--out", "rep"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    refused(r, 'f.json: has both "schema" (a memrel results file) and "benchmarks"')
    assert sorted(os.listdir(tmp_path)) == ["f.json"]


@needs_memrel
@pytest.mark.parametrize("args", [
    ["run", "-b", "null", "-w", TRACE, "--trace-scale", "1/01", "-o", "r.json"],
    ["ab", "-b", "null", "--cpus", "00", "--out", "ab"],
    ["ab", "-b", "null", "--cpus", "0-01", "--out", "ab"],
])
def test_a_whole_number_with_a_leading_zero_is_refused_everywhere(tmp_path, args):
    """c4-leading-zero-trace-scale-cpus (arguable): `--trace-scale 1/01` and `ab --cpus 00` were
    taken, where every other whole number memrel reads refuses a leading zero."""
    r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r)
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_an_rmm_header_ending_in_a_non_ascii_blank_is_refused(tmp_path):
    """c7-rmm-header-unicode-blank (arguable): a header ending in U+2003 was taken (str.strip()),
    where every field takes ASCII blanks only."""
    with open(RMM_LOG, encoding="utf-8") as f:
        lines = f.read().splitlines()
    lines[0] += "\u2003"
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = subprocess.run([MEMREL, "trace", "import", "r.csv", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "r.csv: line 1: not an RMM log")
    assert sorted(os.listdir(tmp_path)) == ["r.csv"]


@needs_memrel
def test_a_memrel_bench_that_exits_silently_is_said_to_have_printed_nothing(tmp_path):
    """c8-bench-silent-exit-empty-reason (arguable): a memrel_bench that exits 1 without a word
    was said as "bench host-malloc: rc 1: ", nothing after the colon."""
    real = memrel_bench_binary()
    if not real:
        pytest.skip("no memrel_bench built")
    fake = tmp_path / "fake"
    fake.write_text(f"""#!/bin/bash
if [ "$1" = "--help" ]; then exec {real} --help; fi
for a in "$@"; do case "$a" in --benchmark_list_tests*) exec {real} "$@";; esac; done
exit 1
""")
    fake.chmod(0o755)
    r = subprocess.run([MEMREL, "-q", "bench", "-b", "host-malloc", "--bench", fake, "-o", "out",
                        "--quick", "--min-time", "0.001"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 3, r.stderr
    assert "bench host-malloc: rc 1: it printed nothing" in r.stderr, r.stderr


@needs_memrel
def test_no_output_replaces_the_pyvenv_cfg_of_the_interpreter_memrel_runs(tmp_path):
    """c1-trace-import-over-venv-pyvenv-cfg, c1-history-changes-markdown-over-otava-pyvenv-cfg
    (arguable): with MEMREL_PYTHON a venv's bin/python, `trace import -o V/pyvenv.cfg` replaced
    the config that interpreter reads at every start, exit 0 (the interpreter is an input)."""
    venv = tmp_path / "V"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(venv)], check=True, capture_output=True, timeout=120)
    before = (venv / "pyvenv.cfg").read_bytes()
    env = dict(os.environ, MEMREL_PYTHON=str(venv / "bin" / "python"))
    for args in (["trace", "import", RMM_LOG, "-o", venv / "pyvenv.cfg"],
                 ["run", "-b", "null", "-w", "temp-then-delete", "-o", venv / "pyvenv.cfg"]):
        r = subprocess.run([MEMREL, "-q", *map(str, args)], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120, env=env)
        refused(r, "pyvenv.cfg")
        assert (venv / "pyvenv.cfg").read_bytes() == before


def test_a_small_trace_is_built_without_importing_numpy():
    """c8-import-optional-numpy-fails-under-ulimit-v (arguable): the importer imported numpy (and
    OpenBLAS's thread buffers) for every trace: a 4-row log failed under `ulimit -v 100000` where
    it went through under 40000. numpy is imported only for a trace large enough to gain."""
    from conftest import SCRIPTS

    code = ("import sys; sys.path.insert(0, sys.argv[1]); from memrel_trace import builder; "
            "builder.columns([0, ~0], [4096]); print('numpy' in sys.modules)")
    r = subprocess.run([sys.executable, "-I", "-c", code, SCRIPTS], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
