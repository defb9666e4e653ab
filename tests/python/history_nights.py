"""SYNTHETIC nights for the history site's tests: copies of tests/data/host-run.json dated one
night apart, each with its own commit and a machine fingerprint, figures jittered by a fixed
seed, one planted step (host-malloc's peak reserved on fragmentation up by half from night STEP)
and one gap (that cell missing on night GAP). Added to a history with `memrel history add`, as a
night is."""

import copy
import datetime
import json
import os
import random
import subprocess

from conftest import DATA, ROOT

NIGHTS = 32
STEP = 20                        # the first night of the planted step
GAP = 8                          # a night without the stepped cell
STEP_CELL = ("host-malloc", "fragmentation")
STEP_FIGURE = "peak_reserved"
FIRST = datetime.datetime(2026, 11, 1, 2, 0, tzinfo=datetime.timezone.utc)


def commit_of(night):
    return f"{night:04x}" + "c0ffee" * 6


def night_doc(host, night, rng):
    doc = copy.deepcopy(host)
    started = FIRST + datetime.timedelta(days=night)
    doc["context"]["started"] = started.strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["context"]["finished"] = (started + datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["context"]["git_commit"] = commit_of(night)
    doc["context"]["fingerprint"] = {
        "gpu_model": None, "gpu_uuid": None, "driver_version": None, "cuda_driver_version": None,
        "cuda_runtime_version": None, "cpu_model": "synthetic CPU", "host": "night-runner",
        "memrel_commit": commit_of(night), "runtime_versions": {}}
    cells = []
    for cell in doc["cells"]:
        key = (cell["backend"], cell["workload"])
        if key == STEP_CELL and night == GAP:
            continue
        m = cell.get("metrics") or {}
        for name in ("peak_reserved", "peak_allocated", "max_overhead_bytes"):
            if isinstance(m.get(name), int):
                # 0.2 % noise: small beside the step, as a quiet night's spread is.
                m[name] = int(m[name] * (1 + rng.uniform(-0.002, 0.002)))
        if key == STEP_CELL and night >= STEP:
            m[STEP_FIGURE] = int(m[STEP_FIGURE] * 1.5)
        # The ratios of the peaks as moved, as memrel computes them (its readers refuse others).
        if m.get("overhead_ratio") is not None:
            m["overhead_ratio"] = m["peak_reserved"] / m["peak_requested"]
        if m.get("utilization") is not None:
            m["utilization"] = m["peak_allocated"] / m["peak_reserved"]
        cells.append(cell)
    doc["cells"] = cells
    return doc


def build_history(memrel, folder, nights=NIGHTS):
    """Writes the nights' results files under folder and adds them, one `history add` a night;
    returns the database's path."""
    with open(os.path.join(DATA, "host-run.json"), encoding="utf-8") as f:
        host = json.load(f)
    rng = random.Random(22)
    db = os.path.join(folder, "history.sqlite")
    for night in range(nights):
        path = os.path.join(folder, f"night-{night:02d}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(night_doc(host, night, rng), f)
        subprocess.run([memrel, "history", "--db", db, "add", path], check=True, capture_output=True,
                       text=True, timeout=60)
    return db


def memrel_binary():
    """The memrel that adds the nights: MEMREL_BINARY, else the first build under build/."""
    chosen = os.environ.get("MEMREL_BINARY")
    if chosen:
        return chosen
    build = os.path.join(ROOT, "build")
    for name in sorted(os.listdir(build)) if os.path.isdir(build) else []:
        path = os.path.join(build, name, "memrel")
        if os.access(path, os.X_OK):
            return path
    return None
