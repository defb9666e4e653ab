"""What the sixteenth adversarial pass of issue 23 found (docs/inputs.md, "Sixteenth pass"): each
test fails on the code before its fix."""

import os
import subprocess

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, memrel, needs_bench, needs_memrel, refused

RMM_HEADER = "Thread,Time,Action,Pointer,Size,Stream\n"


@needs_memrel
@pytest.mark.parametrize("row", ["1,10:00:00.000001,allocate,0x1000, 1024,0x0",
                                 "1,10:00:00.000001,allocate,0x1000,1024\u00a0,0x0",
                                 "1,10:00:00.000001,allocate,0x1000,\u20031024,0x0",
                                 "1,10:00:00.000001,allocate,\u00a00x1000,1024,0x0"])
def test_an_rmm_logs_numbers_hold_no_space(tmp_path, row):
    """c7-csv-size-ws-*, c7-csv-ptr-ws-nbsp: str.strip() took spaces, U+00A0 and U+2003 around a
    Size or a Pointer: " 1024" was imported, where the rule is ASCII digits only."""
    (tmp_path / "log.csv").write_text(RMM_HEADER + row + "\n", encoding="utf-8")
    refused(memrel("-q", "trace", "import", "-o", "t.memtrace", "log.csv", cwd=tmp_path),
            "log.csv")
    assert os.listdir(tmp_path) == ["log.csv"]


@needs_memrel
@pytest.mark.parametrize("value", ["1e-400", "0.000001e-400"])
def test_a_threshold_that_underflows_to_zero_is_refused(tmp_path, value):
    """c4-compare-lmc-*: --latency-min-change 1e-400 read as 0, every change of the median then
    large enough to fail: a rule other than the one asked for."""
    refused(memrel("-q", "compare", HOST_RUN, HOST_RUN, "--latency-min-change", value, cwd=tmp_path),
            "--latency-min-change", value)


@needs_bench
@pytest.mark.parametrize("args", [["bench", "-b", "host-malloc", "--quick", "--filter", "a\x1bb",
                                   "-o", "bo"],
                                  ["bench", "-b", "host-malloc", "--quick", "-o", "b\x01o"],
                                  ["ab", "-b", "host-malloc", "--quick", "--filter", "a\x1bb",
                                   "--out", "abo"]])
def test_text_memrel_bench_writes_back_holds_no_control_character(tmp_path, args):
    """c9-*-control-char-exit4: memrel_bench wrote the filter or its output's folder into its JSON
    raw, a file no reader took: "cut off at byte N (a full disk?)", exit 4 after the run."""
    refused(memrel("-q", *args, cwd=tmp_path), "control character")
    assert os.listdir(tmp_path) == []


@needs_bench
@pytest.mark.parametrize("option, folder", [("--json", "abo/reference"), ("--markdown", "abo/rounds")])
def test_ab_writes_no_comparison_onto_a_folder_it_fills(tmp_path, option, folder):
    """c1-ab-*-own-*-folder: `--json abo/reference` was refused only once every round had run."""
    refused(memrel("-q", "ab", "-b", "host-malloc", "--quick", "--out", "abo", option, folder,
                   cwd=tmp_path), option, "a folder this command fills")
    assert os.listdir(tmp_path) == []


@needs_bench
def test_bench_logs_are_not_its_own_output_file(tmp_path):
    """c1-bench-logs-is-own-output-file: refused only after the run, its folder left."""
    refused(memrel("-q", "bench", "-b", "host-malloc", "--quick", "-o", "bo", "--logs",
                   "bo/bench-host-malloc.json", cwd=tmp_path), "--logs", "which bench writes")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_advise_json_is_not_its_out_folder(tmp_path):
    """c1-advise-json-is-own-out-folder: refused only after the sweep, adv/ left half-written."""
    r = subprocess.run([MEMREL, "-q", "trace", "import", "-o", "t.memtrace",
                        os.path.join(os.path.dirname(HOST_RUN), "..", "..", "benchmarks",
                                     "trace-sources", "rmm-pool-convnet.csv")],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    refused(memrel("-q", "advise", "t.memtrace", "-b", "host-malloc", "--out", "adv", "--json",
                   "adv", cwd=tmp_path), "--json adv", "the same path as --out")
    assert sorted(os.listdir(tmp_path)) == ["t.memtrace"]


@needs_memrel
@pytest.mark.parametrize("kib", [150000, 180000, 200000, 250000])
def test_history_changes_under_a_memory_limit_ends_in_one_line_naming_it(tmp_path, kib):
    """c8-history-ulimit-v-blames-install and the hangs beside it: numpy's and scipy's OpenBLAS
    retried a 32 MiB buffer for ever (at 180000 even with memrel's reserve given back), and a
    shared library that did not fit was "Otava is not importable: run scripts/install-deps"."""
    pytest.importorskip("sqlite3")
    (tmp_path / "r.json").write_text(open(HOST_RUN, encoding="utf-8").read())
    assert memrel("-q", "history", "--db", "h.sqlite", "add", "r.json", cwd=tmp_path).returncode == 0
    r = subprocess.run(["sh", "-c", f'ulimit -v {kib} && exec "$@"', "sh", MEMREL, "-q", "history",
                        "--db", "h.sqlite", "changes"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=90)
    if r.returncode == 0:
        pytest.skip(f"history changes fits in {kib} KiB here")
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and ("memory" in lines[0] or "limit" in lines[0]), r.stderr
    assert "install-deps" not in lines[0] or "Otava" in lines[0] and "limit" in lines[0], lines[0]


@needs_memrel
@pytest.mark.parametrize("args", [["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                                   "r\x1b[7m.json"],
                                  ["report", "--out", "q\x1b[7mz", HOST_RUN],
                                  ["trace", "import", "-o", "t\x1b[7m.memtrace",
                                   os.path.join(os.path.dirname(HOST_RUN), "..", "..", "benchmarks",
                                                "trace-sources", "rmm-pool-convnet.csv")]])
def test_an_output_path_is_printed_escaped(tmp_path, args):
    """c9-*-out-esc-stdout: the path of the output was printed raw, ESC included, where every
    error line and `history` escape it."""
    r = memrel(*args, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout + r.stderr and "\\x1b" in r.stdout + r.stderr, (r.stdout, r.stderr)


@needs_memrel
@pytest.mark.parametrize("args", [["trace", "import", "-o", "t.memtrace", "s.pickle"],
                                  ["run", "-b", "host-malloc", "-w", "s.pickle", "-o", "o.json"]])
def test_a_request_to_stop_ends_a_version_probe_at_once(tmp_path, args):
    """c8-sig*-probe-*: memrel asks an interpreter its version before it runs a Python part; a
    hung one held a SIGTERM for the probe's 10 s, then memrel said "did not answer", exit 4."""
    import pickle
    import signal
    import time

    (tmp_path / "sleepy").write_text("#!/bin/sh\nsleep 300\n")
    (tmp_path / "sleepy").chmod(0o755)
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"segments": [], "device_traces": [[]]}))
    p = subprocess.Popen([MEMREL, "-q", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, MEMREL_PYTHON=str(tmp_path / "sleepy")))
    time.sleep(1.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - sent < 3, err
    assert p.returncode == 128 + signal.SIGTERM, err
    assert len(err.strip().splitlines()) == 1 and "SIGTERM" in err, err
