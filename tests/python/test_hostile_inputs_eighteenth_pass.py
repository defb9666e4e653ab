"""What the eighteenth adversarial pass of issue 23 found (docs/inputs.md, "Eighteenth pass"):
each test fails on the code before its fix."""

import os

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, memrel, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("option, value", [("--byte-tolerance", "0x1%"),
                                           ("--byte-tolerance", "+1%"),
                                           ("--latency-min-change", "-0"),
                                           ("--latency-min-change", "-0.0")])
def test_compare_refuses_a_threshold_spelled_with_a_sign_or_in_hex(tmp_path, option, value):
    """c4-compare-bytetol: "0x1%" was 1 % (stod reads hex); c4-compare-latmin: "-0.0" is >= 0 as
    a double, a negative spelling the range does not allow."""
    refused(memrel("-q", "compare", HOST_RUN, HOST_RUN, option, value, cwd=tmp_path), option)
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("value", ["1e-999", "-0.0", "-0"])
def test_history_changes_refuses_a_magnitude_that_reads_as_zero_or_carries_a_sign(tmp_path, value):
    """c4-hist-minmag: --min-magnitude 1e-999 read as 0 (the rule off, not the one asked for) and
    -0.0 passed the range 0 to 10."""
    r = memrel("-q", "history", "--db", "h.db", "add", HOST_RUN, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    refused(memrel("-q", "history", "--db", "h.db", "changes", "--min-magnitude", value,
                   cwd=tmp_path, timeout=300), "--min-magnitude")


DAEMON_C = r"""#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>
void* dm_alloc(ssize_t n, int d, void* s) {
  static int once;
  if (!once++ && fork() == 0) {
    setsid();
    if (fork() == 0) sleep(120);
    _exit(0);
  }
  return malloc(n);
}
void dm_free(void* p, ssize_t n, int d, void* s) { free(p); }
size_t dm_allocated(int d) { return 0; }
size_t dm_reserved(int d) { return 0; }
void dm_release(void) {}
"""


def tagged_processes(tag):
    """The processes whose environment holds MEMREL_TEST_TAG=tag."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"MEMREL_TEST_TAG={tag}".encode() in f.read().split(b"\0"):
                    with open(f"/proc/{pid}/stat") as s:
                        if s.read().rsplit(")", 1)[1].split()[0] != "Z":
                            found.append(int(pid))
        except OSError:
            continue
    return found


@needs_memrel
@pytest.mark.parametrize("signal_it", [False, True])
def test_a_process_an_allocator_daemonizes_ends_with_memrel(tmp_path, signal_it):
    """c9-run-cell-daemon-child-outlives, c9-run-sigterm-cell-daemon-child: an allocator that
    forks, calls setsid() and forks again left memrel's process groups; the grandchild outlived
    memrel, reparented to init."""
    import signal
    import subprocess
    import time

    from test_hostile_inputs_seventeenth_pass import compiled_host_backend

    compiled_host_backend(tmp_path, "dm", DAEMON_C, "dm", "daemonizes")
    tag = f"{os.getpid()}-{time.monotonic_ns()}"
    env = dict(os.environ, MEMREL_TEST_TAG=tag)
    workloads = "temp-then-delete,temp-then-delete-x100" if signal_it else "temp-then-delete"
    p = subprocess.Popen([MEMREL, "-q", "run", "-b", "./dm.json", "-w", workloads, "-o", "o.json"],
                         cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if signal_it:
        deadline = time.monotonic() + 30
        while not [q for q in tagged_processes(tag) if q != p.pid] and time.monotonic() < deadline:
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
    p.communicate(timeout=120)
    time.sleep(0.5)
    left = tagged_processes(tag)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


@needs_memrel
def test_advise_refuses_a_backend_given_twice(tmp_path):
    """c6-advise-backend-twice: `-b host-malloc,host-malloc` was swept once, exit 0, where run
    refuses the same list."""
    from test_hostile_inputs import RMM_LOG

    refused(memrel("-q", "advise", "-b", "host-malloc,host-malloc", "--out", "adv", RMM_LOG,
                   cwd=tmp_path), "-b", "given twice")
    assert os.listdir(tmp_path) == []


@needs_memrel
@pytest.mark.parametrize("kind", ["trace-named-csv", "workload-named-csv", "rmm-log-named-txt"])
def test_validate_and_run_tell_a_file_by_the_same_rule(tmp_path, kind):
    """c10-validate-*: a trace or a workload named *.csv was ok to validate and refused by run
    (sent to the importer by its name); an RMM log named *.txt was run and refused by validate.
    Both now tell a file by its content first, its name only where the content says nothing."""
    import shutil

    from test_hostile_inputs import RMM_LOG

    if kind == "trace-named-csv":
        r = memrel("-q", "trace", "import", "-o", "t.memtrace", RMM_LOG, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        os.rename(tmp_path / "t.memtrace", tmp_path / "f.csv")
        name = "f.csv"
    elif kind == "workload-named-csv":
        from conftest import ROOT
        shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                    tmp_path / "f.csv")
        name = "f.csv"
    else:
        shutil.copy(RMM_LOG, tmp_path / "f.txt")
        name = "f.txt"
    v = memrel("-q", "validate", f"./{name}", cwd=tmp_path, timeout=300)
    r = memrel("-q", "run", "-b", "host-malloc", "-w", f"./{name}", "-o", "o.json", cwd=tmp_path,
               timeout=300)
    assert v.returncode == 0, v.stderr
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_a_cells_result_descriptor_is_none_of_its_inputs(tmp_path):
    """c1-cell-result-fd-onto-workload: `memrel cell --result-fd 5 5<>w.json` wrote the cell's
    result into its own workload file, exit 0."""
    import shutil
    import subprocess

    from conftest import ROOT

    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json"),
                tmp_path / "w.json")
    before = (tmp_path / "w.json").read_bytes()
    r = subprocess.run(["sh", "-c", f'exec "{MEMREL}" -q cell --backend host-malloc --workload '
                        'w.json --result-fd 5 5<>w.json'], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    refused(r, "--result-fd 5", "is the input w.json")
    assert (tmp_path / "w.json").read_bytes() == before


def test_a_request_to_stop_during_the_reports_swap_is_ignored_the_report_is_written(tmp_path,
                                                                                    monkeypatch):
    """c9-sigINT-report-after-swap-window: a SIGINT as the report's folders moved gave exit 130,
    "ended by SIGINT", though the new report had replaced the earlier one. From the swap on, a
    request to stop is ignored: the work is done."""
    import signal
    import sys

    from conftest import SCRIPTS

    sys.path.insert(0, SCRIPTS)
    try:
        from memrel_report import folder
    finally:
        sys.path.pop(0)
    saved = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    move = folder._move_into_place

    def interrupted_move(*args):
        os.kill(os.getpid(), signal.SIGINT)
        move(*args)

    monkeypatch.setattr(folder, "_move_into_place", interrupted_move)
    out = tmp_path / "rep"
    out.mkdir()
    (out / ".memrel-report").write_text("")

    def fill(tmp):
        with open(os.path.join(tmp, "index.html"), "w") as f:
            f.write("new")

    try:
        folder.write_atomically(str(out), fill)
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
    assert (out / "index.html").read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["rep"]


@needs_memrel
@pytest.mark.parametrize("files", [15, 16, 17])
def test_a_report_short_of_descriptors_ends_in_one_line(tmp_path, files):
    """c8-ulimit-nofile-report-hangs: under `ulimit -n 16` the report said its error and never
    ended: a plot worker started before the next could not be waited for work for ever, and the
    pool's `with` waited for it; a worker ended while starting printed a traceback."""
    import subprocess

    from conftest import host_subset

    run = host_subset(tmp_path, ["temp-then-delete", "fragmentation"], name="r.json")
    try:
        r = subprocess.run(["sh", "-c", f'ulimit -n {files} && exec "$@"', "sh", MEMREL, "-q",
                            "report", "--jobs", "2", "--out", "rep", run],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the report did not end")
    assert r.returncode in (0, 4), r.stderr
    if r.returncode == 4:
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@needs_memrel
def test_a_cell_killed_by_the_cpu_time_limit_is_the_machines_error_not_a_crash(tmp_path):
    """c8-ulimit-cpu-*: a cell killed at `ulimit -t` (SIGXCPU) was recorded as the allocator's
    crash; it is an error that names the limit, as one out of memory under `ulimit -v` is."""
    import json
    import subprocess

    (tmp_path / "cpu.json").write_text(json.dumps({
        "schema": "memrel.workload/1", "name": "cpu", "description": "CPU-heavy",
        "steps": [{"repeat": 200000, "steps": [{"alloc": "t", "bytes": 4096}, {"free": "t"}]}]}))
    # 3 s, not 1: the limit binds memrel itself too, and its start (loading the backends'
    # libraries) took close to 1 s of CPU on a 2-core machine, where it was killed first (-24).
    r = subprocess.run(["sh", "-c", 'ulimit -S -t 3 && exec "$@"', "sh", MEMREL, "-q", "run", "-b",
                        "host-malloc", "-w", "./cpu.json", "-o", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 3, r.stderr
    cell = json.loads((tmp_path / "r.json").read_text())["cells"][0]
    assert cell["status"] == "error", cell["reason"]
    assert "CPU-time limit of 3 s (ulimit -t)" in cell["reason"]
