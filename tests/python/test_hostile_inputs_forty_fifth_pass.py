"""What the forty-fifth adversarial pass of issue 23 found (docs/inputs.md, "Forty-fifth pass").
Each test fails on the code before its fix."""

import json
import os
import signal
import subprocess
import time

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, private_copy, refused
from test_run_lifecycle import alive

WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")


def run_with_fault(tmp_path, fault, memrel=MEMREL):
    return subprocess.run([memrel, "-q", "run", "-b", "host-malloc", "-w", "w.json", "-o",
                           "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env=dict(os.environ, MEMREL_INJECT_FAULT=fault))


@needs_memrel
@pytest.mark.parametrize("kind", ["the run's workload", "a dangling symbolic link", "a folder"])
def test_the_fault_hooks_pid_file_is_a_new_file(tmp_path, kind):
    """c1-inject-fault-file-overwrites-input, c2-inject-fault-file-replaces-symlink:
    MEMREL_INJECT_FAULT=leave-child:FILE wrote FILE without a check: the run's own workload was
    replaced by two process ids, a symbolic link by a regular file (exit 0), a folder said nothing."""
    (tmp_path / "w.json").write_bytes(open(WORKLOAD, "rb").read())
    target = {"the run's workload": "w.json", "a dangling symbolic link": "link",
              "a folder": "folder"}[kind]
    if kind == "a dangling symbolic link":
        os.symlink("nowhere", tmp_path / "link")
    if kind == "a folder":
        (tmp_path / "folder").mkdir()
    before = (tmp_path / "w.json").read_bytes()
    r = run_with_fault(tmp_path, f"leave-child:{target}")
    refused(r, f"MEMREL_INJECT_FAULT=leave-child:{target}")
    assert (tmp_path / "w.json").read_bytes() == before
    assert kind != "a dangling symbolic link" or os.readlink(tmp_path / "link") == "nowhere"
    assert kind != "a folder" or os.listdir(tmp_path / "folder") == []
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_the_fault_hooks_files_are_none_of_memrels_own(tmp_path):
    """c1-inject-fault-file-overwrites-own-files: leave-child:TREE/scripts/memrel_entry.py
    replaced memrel's own entry point with process ids, exit 0."""
    copy = private_copy(tmp_path)
    (tmp_path / "w.json").write_bytes(open(WORKLOAD, "rb").read())
    entry = copy / "scripts" / "memrel_entry.py"
    before = entry.read_bytes()
    memrel = str(copy / "build" / "ci" / "memrel")
    for fault in (f"leave-child:{entry}", f"hang-with-child:{copy / 'scripts' / 'new.py'}",
                  f"rendezvous:{copy / 'scripts'}:1"):
        refused(run_with_fault(tmp_path, fault, memrel), "memrel's own code or data")
    assert entry.read_bytes() == before and not (copy / "scripts" / "new.py").exists()
    assert not any(n.startswith(("arrived-", "busy-")) for n in os.listdir(copy / "scripts"))
    refused(run_with_fault(tmp_path, f"rendezvous:{tmp_path / 'none'}:2"),
            "rendezvous: takes an existing folder")


def cell_by_hand(tmp_path, fault):
    return subprocess.run([MEMREL, "-q", "cell", "--backend", "host-malloc", "--workload",
                           WORKLOAD, "--out", "c.json"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env=dict(os.environ, MEMREL_INJECT_FAULT=fault))


@needs_memrel
def test_a_cell_run_by_hand_ends_what_it_started(tmp_path):
    """c9-inject-fault-cell-child-outlives: `memrel cell --out` under leave-child exited 0 while
    its child ran on under init (`run` ends what a cell leaves; the cell by hand did not)."""
    r = cell_by_hand(tmp_path, f"leave-child:{tmp_path / 'pids'}")
    assert r.returncode == 0, r.stderr
    cell, child = map(int, (tmp_path / "pids").read_text().split())
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = alive(child)
    if left:
        os.kill(child, signal.SIGKILL)
    assert not left, "the cell's child outlived `memrel cell`"


@needs_memrel
def test_a_cell_writes_the_fault_hooks_file_only_new(tmp_path):
    """A cell is not checked as the command that starts it is (a run's later cells find the first
    cell's file): it writes the file only where no file has the name, over nothing."""
    (tmp_path / "pids").write_text("the user's\n")
    r = cell_by_hand(tmp_path, f"leave-child:{tmp_path / 'pids'}")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "pids").read_text() == "the user's\n"
    assert sorted(os.listdir(tmp_path)) == ["c.json", "pids"]


THREE = "temp-then-delete,single-large,paired-large"


def stopped_while_a_cell_hangs(tmp_path, hanging, resume):
    """host-malloc on three workloads, the cell of `hanging` hanging: SIGTERM once it hangs (the
    cells before it are in the journal by then)."""
    pids = tmp_path / "pids"
    env = dict(os.environ, MEMREL_INJECT_FAULT=f"hang-with-child:{pids}",
               MEMREL_INJECT_FAULT_CELL=f"host-malloc/{hanging}")
    runner = subprocess.Popen([MEMREL, "-q", "run", "-b", "host-malloc", "-w", THREE, "-o",
                               "run.json"] + (["--resume"] if resume else []), cwd=tmp_path,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not pids.exists() and time.monotonic() < deadline and runner.poll() is None:
        time.sleep(0.02)
    runner.send_signal(signal.SIGTERM)
    _, stderr = runner.communicate(timeout=30)
    assert runner.returncode == 143, stderr
    pids.unlink()


@needs_memrel
def test_every_resumption_is_listed_also_one_stopped_again(tmp_path):
    """c5-resumed-list-drops-interrupted-resumptions: a run stopped, resumed and stopped again,
    then resumed to the end, listed one resumption (the last) in context.resumed, where the docs
    say each is listed: a resumption was kept only in memory. One that finishes no cell is none
    (c8-resume-emfile-counted-as-resumption, the forty-sixth pass)."""
    stopped_while_a_cell_hangs(tmp_path, "single-large", resume=False)
    stopped_while_a_cell_hangs(tmp_path, "paired-large", resume=True)  # finishes single-large
    stopped_while_a_cell_hangs(tmp_path, "paired-large", resume=True)  # finishes nothing
    r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", THREE, "-o", "run.json",
                        "--resume"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    context = json.loads((tmp_path / "run.json").read_text())["context"]
    assert len(context["resumed"]) == 2, context
    assert all(context["started"] <= t for t in context["resumed"])


@needs_memrel
def test_the_history_refuses_an_ab_candidate_named_after_the_reference(tmp_path):
    """c6-ab-candidate-file-renamed-backend-into-history: `ab -b null --candidate-backend
    host-malloc` names the candidate's benchmarks pair/null/... (to pair them with the
    reference's); `history add` took that file and filed host-malloc's figures in null's series."""
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "null", "--candidate-backend", "host-malloc",
                        "--quick", "--filter", "^pair/.*/warm/512/", "--rounds", "5", "--looks", "1",
                        "--out", "ab"], capture_output=True, text=True, cwd=tmp_path, timeout=180)
    assert r.returncode in (0, 1), r.stderr
    candidate = tmp_path / "ab" / "candidate" / "bench-null.json"
    assert json.loads(candidate.read_text())["context"]["memrel_backend"] == "host-malloc"
    history = [MEMREL, "-q", "history", "--db", "h.sqlite", "add"]
    refused(subprocess.run(history + [str(candidate)], capture_output=True, text=True,
                           cwd=tmp_path, timeout=60),
            str(candidate), "pair/null/warm/512", "is not named for the backend it measured")
    assert not (tmp_path / "h.sqlite").exists()
    # The reference's file is named for the backend it measured: taken.
    reference = subprocess.run(history + ["ab/reference/bench-null.json"], capture_output=True,
                               text=True, cwd=tmp_path, timeout=60)
    assert reference.returncode == 0, reference.stderr
