"""memrel on a real Slurm (docs/slurm.md): a one-node cluster on this machine (slurm_cluster.py)
runs the host-backend matrix as a job array of shards through scripts/slurm/submit, exactly as
shipped (each task asks for a GPU: the node offers two as GRES, placeholders without CUDA behind
them), and the merged results must be the unsharded run's: the same cells in the same order, the
same statuses, the allocator's bytes to the byte, and the kernel's (RSS) within the gate's
tolerance (memrel compare).

Needs root, to install Debian's slurm-wlm and munge where they are missing (scripts/install-deps
--slurm) and to run the daemons; skipped, with the reason, only where that cannot be done.
"""

import json
import os
import re
import subprocess
import time

import pytest

from conftest import ROOT, read_json
from slurm_cluster import SlurmCluster, missing_programs

SUBMIT = os.path.join(ROOT, "scripts", "slurm", "submit")
SHARDS = 3
# Every host backend with workloads that take milliseconds at this capacity, and statuses ok and
# unavailable (a torch program on a host backend): 12 cells.
MATRIX = ["-b", "host-malloc,host-malloc-retain,pluggable-host-example",
          "-w", "temp-then-delete,fragmentation,torch-gc-pressure,torch-seed-000",
          "--host-capacity", "64MiB"]


def _memrel_binary():
    """MEMREL_BINARY, or a memrel under build/ that has the merge subcommand."""
    if os.environ.get("MEMREL_BINARY"):
        return os.environ["MEMREL_BINARY"]
    build = os.path.join(ROOT, "build")
    for name in sorted(os.listdir(build)) if os.path.isdir(build) else []:
        path = os.path.join(build, name, "memrel")
        if os.access(path, os.X_OK):
            help_text = subprocess.run([path, "--help"], capture_output=True, text=True).stdout
            if re.search(r"^\s+merge\s", help_text, re.M):
                return path
    return None


@pytest.fixture(scope="module")
def memrel():
    path = _memrel_binary()
    if not path:
        pytest.skip("no memrel binary with the merge subcommand under build/ (build it, or set "
                    "MEMREL_BINARY)")
    return path


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0:
        pytest.skip("not root: installing Slurm and running its daemons needs root")
    if missing_programs():
        r = subprocess.run([os.path.join(ROOT, "scripts", "install-deps"), "--slurm"],
                           capture_output=True, text=True, timeout=600)
        still = missing_programs()
        if still:
            said = (r.stdout + r.stderr).strip().splitlines()
            pytest.skip(f"Slurm cannot be installed here ({', '.join(still)} missing after "
                        f"scripts/install-deps --slurm, exit {r.returncode}: "
                        f"{said[-1] if said else 'no output'})")
    started = time.monotonic()
    with SlurmCluster(gpus=2) as c:
        print(f"slurm: cluster up in {time.monotonic() - started:.1f} s")
        daemons = [p.pid for p in c.processes.values()]
        yield c
    # Nothing the test started outlives it.
    assert c.left_after_stop == [], f"still running after stop: {c.left_after_stop}"
    for pid in daemons:
        assert not os.path.exists(f"/proc/{pid}"), f"daemon {pid} still there"


def test_the_scripts_refuse_bad_use_with_one_line_and_exit_2(tmp_path):
    """Without a cluster: what is checked before anything is submitted or run."""
    array = os.path.join(ROOT, "scripts", "slurm", "memrel-array.sbatch")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    for argv, error in [
            ([SUBMIT, "-n", "0"], "submit: -n '0': the number of shards must be a whole number of at least 1\n"),
            ([SUBMIT, "--frobnicate"], "submit: unknown option '--frobnicate' (usage: "),
            (["bash", array, str(tmp_path)], "memrel-array: not an array task: submit with sbatch --array=1-N\n")]:
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=30)
        assert r.returncode == 2, (argv, r.stderr)
        assert r.stderr.startswith(error) and r.stderr.count("\n") == 1, (argv, r.stderr)
    r = subprocess.run(["bash", array, str(tmp_path)], capture_output=True, text=True, timeout=30,
                       env=dict(env, SLURM_ARRAY_TASK_ID="3", SLURM_ARRAY_TASK_MIN="1",
                                SLURM_ARRAY_TASK_MAX="7", SLURM_ARRAY_TASK_COUNT="4"))
    assert r.returncode == 2 and "--array=1-7 has 4 tasks: shards need a range without gaps or " \
        "steps" in r.stderr, r.stderr
    assert os.listdir(tmp_path) == []


def _submit(cluster, memrel, out, *run_options, submit_options=()):
    return subprocess.run([SUBMIT, "-n", str(SHARDS), "-o", str(out), *submit_options, "--wait",
                           "--", *run_options], capture_output=True, text=True, cwd=ROOT,
                          env=dict(cluster.env, MEMREL=memrel), timeout=180)


def _key(cell):
    return f"{cell['backend']}/{cell['workload']}"


def test_an_array_of_shards_merges_into_the_unsharded_run(cluster, memrel, tmp_path):
    whole_path = tmp_path / "whole.json"
    r = subprocess.run([memrel, "run", *MATRIX, "-o", whole_path], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr

    out = tmp_path / "slurm"
    started = time.monotonic()
    r = _submit(cluster, memrel, out, *MATRIX)
    print(f"slurm: {SHARDS} shards and the merge in {time.monotonic() - started:.1f} s")
    assert r.returncode == 0, (r.stdout, r.stderr, cluster.log("slurmctld.log"))
    assert r.stdout == f"{out}/merged.json\n"

    # Each shard ran as its own task of one array, under Slurm.
    array = re.search(r"shards: job (\d+) \(array 1-3\)", r.stderr).group(1)
    for k in range(1, SHARDS + 1):
        log = (out / f"memrel-shard-{array}_{k}.out").read_text()
        assert f"memrel-array: shard {k}/{SHARDS} on " in log, log
        assert "GPUs allocated: 1 " in log, log  # the script's --gres=gpu:1, as shipped
        shard = read_json(out / f"shard-{k}-of-{SHARDS}.json")
        assert shard["context"]["shard"]["index"] == k
        assert len(shard["cells"]) == 4  # 12 cells dealt to 3 shards

    whole, merged = read_json(whole_path), read_json(out / "merged.json")
    assert [_key(c) for c in merged["cells"]] == [_key(c) for c in whole["cells"]]
    assert len(merged["cells"]) == 12
    statuses = set()
    for a, b in zip(whole["cells"], merged["cells"]):
        assert (b["status"], b["reason"]) == (a["status"], a["reason"]), _key(a)
        statuses.add(a["status"])
        assert [(m["label"], m["at"]["requested"], m["at"]["allocated"], m["at"]["reserved"])
                for m in b["marks"]] == \
               [(m["label"], m["at"]["requested"], m["at"]["allocated"], m["at"]["reserved"])
                for m in a["marks"]], _key(a)
        for figure in ("peak_requested", "peak_allocated", "peak_reserved", "max_overhead_bytes"):
            assert b["metrics"][figure] == a["metrics"][figure], (_key(a), figure)
    assert statuses == {"ok", "unavailable"}
    assert merged["context"]["options"] == whole["context"]["options"]
    assert [m["shard"] for m in merged["context"]["merged_from"]] == ["1/3", "2/3", "3/3"]
    assert "shard" not in merged["context"]

    gate = subprocess.run([memrel, "compare", "--no-latency-gate", whole_path, out / "merged.json"],
                          capture_output=True, text=True, timeout=60)
    assert gate.returncode == 0, gate.stdout + gate.stderr


def test_a_failed_shard_cancels_the_merge(cluster, memrel, tmp_path):
    out = tmp_path / "slurm"
    r = _submit(cluster, memrel, out, "-w", "no-such-workload", submit_options=["--no-gpu"])
    assert r.returncode == 4, r.stderr
    assert "never ran: a shard failed" in r.stderr and r.stdout == ""
    assert not (out / "merged.json").exists()
    logs = sorted(p.name for p in out.iterdir() if p.name.startswith("memrel-shard-"))
    assert len(logs) == SHARDS
    assert "unknown workload 'no-such-workload'" in (out / logs[0]).read_text()
    assert not list(out.glob("memrel-merge-*.out")), "the merge ran after a failed shard"


def _running(pid):
    """True while the process exists and is not a zombie (ended, not yet reaped by its parent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


# Last in this file: it stops the module's cluster while a job runs, as a failing test would.
def test_stopping_the_cluster_ends_a_running_job_and_every_daemon(cluster, tmp_path):
    script = tmp_path / "sleep.sh"
    script.write_text("#!/bin/bash\nsleep 300\n")
    r = subprocess.run(["sbatch", "--gres=none", "-o", str(tmp_path / "sleep.out"), str(script)],
                       capture_output=True, text=True, env=cluster.env, timeout=30)
    assert r.returncode == 0, r.stderr
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = subprocess.run(["squeue", "-h", "-o", "%T"], capture_output=True, text=True,
                               env=cluster.env, timeout=10).stdout.split()
        if state == ["RUNNING"] and any("sleep 300" in _command_line(p)
                                        for p in cluster.processes_left()):
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"the job never ran: {state}")
    started = cluster.processes_left()
    daemons = [p.pid for p in cluster.processes.values()]
    assert set(daemons) < set(started)
    cluster.stop()
    assert cluster.left_after_stop == []
    assert [p for p in started if _running(p)] == []
