"""What the fifteenth adversarial pass of issue 23 found (docs/inputs.md, "Fifteenth pass"): each
test fails on the code before its fix."""

import os
import subprocess

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, RMM_LOG, needs_memrel


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
