"""What the sixty-fifth adversarial pass of issue 23 found arguable and was fixed (docs/inputs.md,
"Sixty-fifth pass"). The test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel


@needs_memrel
@pytest.mark.parametrize("command", [["list"], ["--version"]])
def test_a_full_standard_output_is_said_with_its_cause(tmp_path, command):
    """c8-stdout-full-no-reason: `memrel list > /dev/full` said "cannot write to standard output"
    without the cause the Python parts give."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        r = subprocess.run([MEMREL, *command], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=tmp_path, timeout=60)
    assert r.returncode == 4, r.stderr
    assert r.stderr == "memrel: cannot write to standard output (No space left on device)\n", \
        r.stderr


def _workloads_folder(tmp_path):
    """A workloads folder holding one workload, wd/a.json, named 'temp-then-delete' (its file
    name differs from its name, as the pass had it), and an RMM log to import."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    wd = tmp_path / "wd"
    wd.mkdir()
    with open(os.path.join(root, "benchmarks/workloads/temp-then-delete.json"), "rb") as f:
        (wd / "a.json").write_bytes(f.read())
    with open(os.path.join(root, "benchmarks/trace-sources/rmm-pool-convnet.csv"), "rb") as f:
        (tmp_path / "log.csv").write_bytes(f.read())
    return wd


def _import(tmp_path, *words):
    return subprocess.run([MEMREL, "--workloads-dir", "wd", "trace", "import", *words],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=tmp_path, timeout=120)


@needs_memrel
@pytest.mark.parametrize("name", ["temp-then-delete", "TEMP-then-delete", None])
def test_an_import_into_the_workloads_folder_takes_no_name_a_workload_there_has(tmp_path, name):
    """c6-trace-import-name-twin-in-workloads-dir: `trace import log.csv --name temp-then-delete
    -o wd/dup.memtrace` was taken though wd/a.json has that name, and every later run without -w
    was refused. A name whose report page differs only by case is one page too; the name taken
    from the file's name is checked as --name is."""
    wd = _workloads_folder(tmp_path)
    if name is None:  # the default name: the file's, here temp-then-delete
        os.rename(tmp_path / "log.csv", tmp_path / "temp-then-delete.csv")
        r = _import(tmp_path, "temp-then-delete.csv", "-o", "wd/dup.memtrace")
    else:
        r = _import(tmp_path, "log.csv", "--name", name, "-o", "wd/dup.memtrace")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "wd/a.json" in r.stderr, r.stderr
    assert sorted(os.listdir(wd)) == ["a.json"]


@needs_memrel
def test_an_import_into_the_workloads_folder_may_replace_its_own_trace(tmp_path):
    """The trace the import replaces is not another workload: importing again under one name
    onto one file is taken, as is a name no workload there has, and a run then reads both."""
    wd = _workloads_folder(tmp_path)
    for _ in range(2):
        r = _import(tmp_path, "log.csv", "--name", "convnet", "-o", "wd/convnet.memtrace")
        assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "--workloads-dir", "wd", "list"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 0 and "convnet" in r.stdout and "temp-then-delete" in r.stdout, r
