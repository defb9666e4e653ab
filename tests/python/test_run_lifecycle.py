"""`memrel run` as a process: where it may write, how long a cell may take, what a signal or a
SIGKILL leaves behind (the journal, never a cell or a temporary file), --resume, and --gpus
with a fake device list (MEMREL_FAKE_GPUS) for the scheduling. The cells are host backends on
the two smallest shipped workloads, so each test takes about a second; misbehaving cells come
from MEMREL_INJECT_FAULT (harness/execution/cell.cpp).

Run from the repository root, after a build: python3 -m pytest -q tests/python/test_run_lifecycle.py
"""

import json
import os
import shutil
import signal
import stat
import subprocess
import time

import pytest

from conftest import ROOT, memrel_binary

FAST = "temp-then-delete"  # tens of milliseconds a cell
SLOW = "single-large"      # 360 MiB: a second


MEMREL = memrel_binary()
pytestmark = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/ (build it, or set MEMREL_BINARY)")


@pytest.fixture
def tmpdir_env(tmp_path):
    """An environment whose TMPDIR is a folder of its own, to see what is left there."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMREL_")}
    env["TMPDIR"] = str(tmp)
    return env, tmp


def run(args, env=None, timeout=60):
    e = env if env is not None else {k: v for k, v in os.environ.items() if not k.startswith("MEMREL_")}
    return subprocess.run([MEMREL, "run", *map(str, args)], capture_output=True, text=True, env=e,
                          timeout=timeout)


def one_line_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def alive(pid):
    """A zombie is dead: it only waits for its new parent to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(predicate, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def journal_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------------- the output, the options

def test_an_unusable_output_is_refused_before_any_cell(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    afile = tmp_path / "afile"
    afile.write_text("x")
    cases = [(tmp_path, "is a folder"), (fifo, "not a regular file"),
             ("/dev/null", "not a regular file"), (afile / "run.json", "cannot create its folder"),
             ("/proc/memrel-run.json", "cannot write in its folder")]
    for out, what in cases:
        start = time.monotonic()
        # --timeout 1 with a hanging cell: had a cell started, the error would come after it.
        r = run(["-b", "host-malloc", "-w", FAST, "-o", out, "--timeout", "5"],
                env=dict(os.environ, MEMREL_INJECT_FAULT="hang"))
        one_line_error(r, str(out), what)
        assert "[1/" not in r.stderr and time.monotonic() - start < 5
    assert sorted(os.listdir(tmp_path)) == ["afile", "fifo"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        one_line_error(run(["-b", "host-malloc", "-w", FAST, "-o", folder / "run.json"]),
                       str(folder / "run.json"), "cannot write in its folder")
    finally:
        folder.chmod(stat.S_IRWXU)


@pytest.mark.parametrize("value", ["-1", "0", "86401", "99999999999999999999", "1.5", "ten"])
def test_the_timeout_is_range_checked(tmp_path, value):
    r = run(["-b", "host-malloc", "-w", FAST, "-o", tmp_path / "run.json", f"--timeout={value}"])
    one_line_error(r, "--timeout", "from 1 to 86400")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("gpus, fake, what", [
    ("0,2", "2", "no GPU 2"), ("1,1", "2", "GPU 1 given twice"),
    ("0,", "2", "is not a GPU index"), ("x", "2", "is not a GPU index"),
    ("all", "0", "MEMREL_FAKE_GPUS"),
])
def test_bad_gpu_lists_are_refused(tmp_path, gpus, fake, what):
    env = dict(os.environ, MEMREL_FAKE_GPUS=fake)
    one_line_error(run(["-b", "host-malloc", "-w", FAST, "-o", tmp_path / "run.json", f"--gpus={gpus}"], env=env), what)


# ------------------------------------------------------------------ signals, SIGKILL and resume

def parent_of(pid):
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def start_hanging_run(tmp_path, env, zygote="device"):
    """host-malloc on FAST then SLOW; the SLOW cell starts a child, writes both pids and hangs.
    With zygote "all" the cells are forked from a zygote (docs/design.md, "Cells start warm"):
    its pid is returned too, as one more process that must not outlive the run."""
    pids = tmp_path / "pids"
    env = dict(env, MEMREL_INJECT_FAULT=f"hang-with-child:{pids}",
               MEMREL_INJECT_FAULT_CELL=f"host-malloc/{SLOW}")
    out = tmp_path / "run.json"
    runner = subprocess.Popen([MEMREL, "run", "-b", "host-malloc", "-w", f"{FAST},{SLOW}", "-o", out,
                               "--zygote", zygote],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_for(pids.exists), "the hanging cell never started"
    cell, grandchild = map(int, pids.read_text().split())
    assert alive(cell) and alive(grandchild)
    if zygote == "all":
        zygote_pid = parent_of(cell)
        assert zygote_pid != runner.pid, "the cell was forked by the zygote"
        return runner, out, (cell, grandchild, zygote_pid)
    return runner, out, (cell, grandchild)


@pytest.mark.parametrize("zygote", ["device", "all"])
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_cells_keeps_the_finished_and_leaves_no_temporary_file(tmp_path, tmpdir_env, sig, code, zygote):
    env, tmp = tmpdir_env
    runner, out, pids = start_hanging_run(tmp_path, env, zygote)
    runner.send_signal(sig)
    _, stderr = runner.communicate(timeout=10)
    assert runner.returncode == code, stderr
    assert f"interrupted by {signal.Signals(sig).name}" in stderr.splitlines()[-1]
    assert wait_for(lambda: not any(map(alive, pids)), 5), "a cell or its child outlived the run"
    assert os.listdir(tmp) == []
    assert not out.exists()
    lines = journal_lines(f"{out}.journal")
    assert lines[0]["schema"] == "memrel.journal/1"
    assert [(line["index"], line["cell"]["workload"], line["cell"]["status"]) for line in lines[1:]] == [(0, FAST, "ok")]


@pytest.mark.parametrize("zygote", ["device", "all"])
def test_sigkill_of_the_runner_ends_its_cell_and_the_cells_child(tmp_path, tmpdir_env, zygote):
    env, tmp = tmpdir_env
    runner, out, pids = start_hanging_run(tmp_path, env, zygote)
    runner.kill()
    runner.communicate(timeout=10)
    assert wait_for(lambda: not any(map(alive, pids)), 5), "a cell or its child outlived the runner"
    assert os.listdir(tmp) == []
    # The finished cell was on disk before the kill.
    assert [line["cell"]["workload"] for line in journal_lines(f"{out}.journal")[1:]] == [FAST]


def test_what_a_finished_cell_left_running_ends_with_it(tmp_path):
    pids = tmp_path / "pids"
    r = run(["-b", "host-malloc", "-w", FAST, "-o", tmp_path / "run.json"],
            dict(os.environ, MEMREL_INJECT_FAULT=f"leave-child:{pids}"))
    assert r.returncode == 0, r.stderr
    cell, grandchild = map(int, pids.read_text().split())
    assert wait_for(lambda: not alive(grandchild), 5), "the cell's child outlived it"


def test_resume_runs_only_the_missing_cells_and_removes_the_journal(tmp_path, tmpdir_env):
    env, tmp = tmpdir_env
    runner, out, _ = start_hanging_run(tmp_path, env)
    runner.kill()
    runner.communicate(timeout=10)
    journal = f"{out}.journal"
    finished = journal_lines(journal)[1]["cell"]
    args = ["-b", "host-malloc", "-w", f"{FAST},{SLOW}", "-o", out]
    # Without --resume the journal is not overwritten; with other options it is not continued.
    one_line_error(run(args, env), journal, "--resume")
    one_line_error(run(args + ["--resume", "--timeout", "7"], env), journal, "of another run", "cell_timeout_s")
    one_line_error(run(["-b", "host-malloc", "-w", FAST, "-o", out, "--resume"], env), journal, "of another run", "workloads")
    r = run(args + ["--resume"], env)
    assert r.returncode == 0, r.stderr
    assert "1 of 2 cells already finished" in r.stderr
    # memrel run prints only cells worth reading and a line per backend once its cells are done:
    # here the backend's line, counting the journal's cell and the one run now.
    progress = [line for line in r.stderr.splitlines() if line.startswith("[")]
    assert len(progress) == 1 and progress[0].startswith("[2/2] host-malloc: 2 cells: 2 ok"), r.stderr
    doc = json.loads(out.read_text())
    assert [(c["workload"], c["status"]) for c in doc["cells"]] == [(FAST, "ok"), (SLOW, "ok")]
    assert doc["cells"][0] == finished  # the journal's record, not a second run of it
    assert len(doc["context"]["resumed"]) == 1
    assert not os.path.exists(journal) and os.listdir(tmp) == []
    one_line_error(run(args + ["--resume"], env), journal, "no journal")
    one_line_error(run(["-b", "host-malloc", "-w", FAST, "--resume"], env), "--resume", "give -o")


def stop_at_its_first_cell(args, journal):
    """Starts `memrel run ARGS` with its first cell hanging, and stops it (SIGTERM) once the
    journal holds its first line: a journal of an interrupted run, with no cell finished."""
    runner = subprocess.Popen([MEMREL, "run", *map(str, args)], stderr=subprocess.PIPE,
                              env=dict(os.environ, MEMREL_INJECT_FAULT="hang"))
    assert wait_for(lambda: journal.exists() and journal.read_text().endswith("\n"))
    runner.send_signal(signal.SIGTERM)
    runner.communicate(timeout=10)


def test_a_record_cut_short_by_a_kill_is_dropped_on_resume(tmp_path):
    out = tmp_path / "run.json"
    args = ["-b", "host-malloc", "-w", f"{FAST},{SLOW}", "-o", out]
    assert run(args, dict(os.environ, MEMREL_INJECT_FAULT="abort",
                          MEMREL_INJECT_FAULT_CELL=f"host-malloc/{SLOW}")).returncode == 3
    # Rebuild the journal of a run killed while writing its second record.
    doc = json.loads(out.read_text())
    out.unlink()
    header = {"schema": "memrel.journal/1", "run": None, "context": doc["context"]}
    journal = tmp_path / "run.json.journal"
    # The run's own description comes from a real journal: start one and stop it at once.
    stop_at_its_first_cell(args, journal)
    header["run"] = journal_lines(journal)[0]["run"]
    cell = json.dumps({"index": 0, "cell": doc["cells"][0]})
    journal.write_text(json.dumps(header) + "\n" + cell + "\n" + cell[: len(cell) // 2])
    r = run(args + ["--resume"])
    assert r.returncode == 0, r.stderr
    assert "1 of 2 cells already finished" in r.stderr
    assert [c["status"] for c in json.loads(out.read_text())["cells"]] == ["ok", "ok"]


@pytest.mark.parametrize("edit", ["description", "name", "library"])
def test_a_resume_after_its_backend_file_or_library_changed_is_another_run(tmp_path, edit):
    """The eighth adversarial pass: a resume after the backend file's description, name or
    release changed went on, exit 0, and put cells of two allocators under one backend."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    shutil.copy(library, tmp_path / "lib.so")
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        described = json.load(f)
    described["library"] = str(tmp_path / "lib.so")
    backend = tmp_path / "bk.json"
    backend.write_text(json.dumps(described))
    out = tmp_path / "run.json"
    args = ["-b", f"host-malloc,{backend}", "-w", FAST, "-o", out]
    journal = tmp_path / "run.json.journal"
    stop_at_its_first_cell(args, journal)
    before = journal.read_bytes()
    if edit == "library":
        with open(tmp_path / "lib.so", "ab") as f:
            f.write(b"\0")  # a rebuilt library
    else:
        described[edit] = "edited"
        backend.write_text(json.dumps(described))
    one_line_error(run(args + ["--resume"]), str(journal), "of another run", "backend_files")
    assert journal.read_bytes() == before and not out.exists()


# ------------------------------------------------------------------------ one cell per GPU

def bytes_of(path):
    """Each cell's names, status, and the allocator's bytes at every mark and step."""
    cells = json.loads(path.read_text())["cells"]
    return [(c["backend"], c["workload"], c["status"],
             [(m["label"], m["at"]["requested"], m["at"]["allocated"], m["at"]["reserved"]) for m in c["marks"]],
             [(s["op"], s["bytes"], s["after"]["allocated"], s["after"]["reserved"]) for s in c["steps"]])
            for c in cells]


def test_fake_gpus_give_the_bytes_of_a_serial_run_and_record_each_cells_gpu(tmp_path):
    args = ["-b", "host-malloc,host-malloc-retain", "-w", f"{FAST},{SLOW}"]
    serial, parallel = tmp_path / "serial.json", tmp_path / "parallel.json"
    assert run(args + ["-o", serial]).returncode == 0
    r = run(args + ["-o", parallel, "--gpus", "all"], dict(os.environ, MEMREL_FAKE_GPUS="2"))
    assert r.returncode == 0, r.stderr
    assert bytes_of(parallel) == bytes_of(serial)
    doc = json.loads(parallel.read_text())
    assert doc["context"]["options"]["gpus"] == [0, 1]
    for c in doc["cells"]:
        assert c["gpu"]["index"] in (0, 1) and c["gpu"]["uuid"] is None
        assert c["setup"]["environment"]["CUDA_VISIBLE_DEVICES"] == str(c["gpu"]["index"])
    assert all("gpu" not in c for c in json.loads(serial.read_text())["cells"])


def test_fake_gpus_run_cells_at_once_never_two_on_one_gpu(tmp_path):
    meet = tmp_path / "meet"
    meet.mkdir()
    # Every cell waits until two cells are there at once, and crashes when another holds its
    # CUDA_VISIBLE_DEVICES: one cell at a time would time out.
    env = dict(os.environ, MEMREL_FAKE_GPUS="3", MEMREL_INJECT_FAULT=f"rendezvous:{meet}:2")
    out = tmp_path / "run.json"
    r = run(["-b", "host-malloc,host-malloc-retain", "-w", f"{FAST},{SLOW}", "-o", out, "--gpus", "0,2",
             "--timeout", "20"], env)
    assert r.returncode == 0, r.stderr
    cells = json.loads(out.read_text())["cells"]
    assert [c["status"] for c in cells] == ["ok"] * 4, [c["reason"] for c in cells]
    assert {c["gpu"]["index"] for c in cells} == {0, 2}
    assert len([n for n in os.listdir(meet) if n.startswith("arrived-")]) == 4


def test_one_cell_at_a_time_cannot_meet(tmp_path):
    """The rendezvous proves parallelism only if a serial run fails it."""
    meet = tmp_path / "meet"
    meet.mkdir()
    env = dict(os.environ, MEMREL_FAKE_GPUS="2", MEMREL_INJECT_FAULT=f"rendezvous:{meet}:2")
    r = run(["-b", "host-malloc", "-w", f"{FAST},{SLOW}", "-o", tmp_path / "run.json", "--gpus", "1", "--timeout", "1"], env)
    assert r.returncode == 3
    statuses = [c["status"] for c in json.loads((tmp_path / "run.json").read_text())["cells"]]
    assert statuses[0] == "timeout" and "ok" not in statuses


def test_a_signal_removes_the_temporary_trace_of_an_imported_snapshot(tmp_path, tmpdir_env):
    import sys

    import trace_samples

    env, tmp = tmpdir_env
    snapshot = trace_samples.write_snapshot(tmp_path / "snap.pickle")
    pids = tmp_path / "pids"
    env = dict(env, MEMREL_PYTHON=sys.executable, MEMREL_INJECT_FAULT=f"hang-with-child:{pids}")
    runner = subprocess.Popen([MEMREL, "run", "-b", "host-malloc", "-w", snapshot, "-o", tmp_path / "run.json"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_for(pids.exists), runner.communicate(timeout=10)
    # In the run's own folder (memrel-run-XXXXXX, docs/inputs.md, "Leftovers").
    assert any(n.endswith(".memtrace") for _, _, names in os.walk(tmp) for n in names), \
        "the import made no temporary trace"
    runner.send_signal(signal.SIGINT)
    _, stderr = runner.communicate(timeout=10)
    assert runner.returncode == 130, stderr
    assert wait_for(lambda: not any(map(alive, map(int, pids.read_text().split()))), 5)
    assert os.listdir(tmp) == []


def test_a_resume_runs_again_a_cell_that_was_unavailable(tmp_path):
    """An `unavailable` cell says what the machine lacked then (a framework, a device), not what
    the allocator did: a --resume after the tool was installed kept it (issue 23, class 8; an
    arguable finding of the twentieth adversarial pass). Here the journal of an interrupted run
    holds its first cell as unavailable, as a run before the install wrote it."""
    out = tmp_path / "run.json"
    args = ["-b", "host-malloc", "-w", f"{FAST},{SLOW}", "-o", out]
    journal = tmp_path / "run.json.journal"
    stop_at_its_first_cell(args, journal)
    header = journal_lines(journal)[0]
    # The record of such a cell: the one a machine without CUDA writes, of this run's cell.
    assert run(["-b", "cuda-malloc", "-w", FAST, "-o", tmp_path / "no-device.json"]).returncode in (0, 3)
    cell = json.loads((tmp_path / "no-device.json").read_text())["cells"][0]
    if cell["status"] != "unavailable":
        pytest.skip("cuda-malloc runs on this machine: no unavailable cell to start from")
    cell["backend"] = "host-malloc"
    journal.write_text(json.dumps(header) + "\n" + json.dumps({"index": 0, "cell": cell}) + "\n")
    r = run(args + ["--resume"])
    assert r.returncode == 0, r.stderr
    assert "0 of 2 cells already finished (1 unavailable then, tried again)" in r.stderr, r.stderr
    assert [c["status"] for c in json.loads(out.read_text())["cells"]] == ["ok", "ok"]
