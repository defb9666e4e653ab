"""What the seventy-third adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-third pass"). Each test fails on the code before its fix."""

import json
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel, refused


def _workload(tmp_path, name, steps):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"schema": "memrel.workload/1", "name": name, "description": "x",
                                "steps": steps}), encoding="utf-8")
    return path


@needs_memrel
def test_a_mark_spelled_as_a_repeated_marks_number_is_refused(tmp_path):
    """c6-mark-at-suffix-collision (arguable): marks inside a repeat are numbered `a@1`, `a@2`; a
    mark written `a@1` beside a repeat's `a` made two marks of one label in a cell, which the
    results and the report showed alike. '@' is refused in a mark as '#' (compare's numbering)
    is."""
    path = _workload(tmp_path, "atmark", [
        {"alloc": "x", "shape": [10], "dtype": "float32"}, {"mark": "a@1"}, {"free": "x"},
        {"repeat": 2, "steps": [{"alloc": "y", "shape": [1000], "dtype": "float32"},
                                {"mark": "a"}, {"free": "y"}]}])
    r = subprocess.run([MEMREL, "validate", str(path)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "atmark.json", "'mark' may not contain '@'")


@needs_memrel
@pytest.mark.parametrize("invisible", ["\u200b", "\ufeff", "\u2060", "\u00ad"])
def test_a_name_holding_an_invisible_character_is_refused(tmp_path, invisible):
    """c6-zero-width-name-twins (arguable): workloads named `zw`, `z<U+200B>w` and `z<U+FEFF>w`
    ran together, exit 0, and compare and the report showed three rows that all read `zw`. An
    invisible character that joins nothing (a zero-width space, a word joiner, a byte order
    mark, a soft hyphen) is refused in a name as a control or text-direction one is; the joiners
    that scripts and emoji need (U+200C, U+200D) are names' characters still."""
    path = _workload(tmp_path, "zw", [{"alloc": "x", "shape": [10], "dtype": "float32"},
                                      {"free": "x"}])
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["name"] = f"z{invisible}w"
    path.write_text(json.dumps(doc), encoding="utf-8")
    r = subprocess.run([MEMREL, "validate", str(path)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "zw.json", f"\\u{ord(invisible):04X}", "invisible")
    doc["name"] = "z\u200dw"
    path.write_text(json.dumps(doc), encoding="utf-8")
    r = subprocess.run([MEMREL, "validate", str(path)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr


def _python_path():
    import os
    import sys
    return os.path.realpath(sys.executable)


@needs_memrel
@pytest.mark.parametrize("kib", [1000, 3000])
def test_an_interpreter_that_cannot_start_under_a_data_limit_is_said_so(tmp_path, kib):
    """c8-data-limit-python-probe-wrong-words: under `ulimit -d 1000` a working python3 was
    "cannot be run (not found, or not executable)", at 3000 KiB "is not a Python interpreter":
    the limit went unnamed, where `ulimit -v` is named. The data-segment limit is said, in the
    unit `ulimit` took it in."""
    import pickle
    with open(tmp_path / "s.pickle", "wb") as f:
        pickle.dump({"segments": [], "device_traces": [[{"action": "alloc", "addr": 16,
                                                           "size": 100, "stream": 0,
                                                           "time_us": 1}]]}, f)
    r = subprocess.run(["bash", "-c", f'ulimit -d {kib}; exec "$0" trace import -q -o o.memtrace '
                        "s.pickle", MEMREL], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120, env=dict(__import__("os").environ, MEMREL_PYTHON=_python_path()))
    refused(r, f"under a data-segment limit of {kib} KiB (ulimit -d", exit_code=4)
    assert "not found" not in r.stderr and "not a Python interpreter" not in r.stderr
    assert not (tmp_path / "o.memtrace").exists()


@needs_memrel
def test_a_cells_data_limit_is_said_in_the_unit_it_was_set_in(tmp_path):
    """c8-data-limit-0-mib (arguable): a cell that ran out under `ulimit -d 1000` said "a
    data-segment limit of 0 MiB"."""
    subprocess.run(["bash", "-c", 'ulimit -d 1000; exec "$0" run -q -b host-malloc -w '
                    "temp-then-delete -o r.json", MEMREL], capture_output=True, text=True,
                   cwd=tmp_path, timeout=300)
    text = (tmp_path / "r.json").read_text()
    assert "data-segment limit of 1000 KiB (ulimit -d)" in text
    assert "limit of 0 MiB" not in text
