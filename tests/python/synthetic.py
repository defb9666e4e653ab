"""SYNTHETIC device and torch cells for the tests, built from a real host cell of
tests/data/host-run.json with figures shaped like the H200 tables in docs/design.md (context
527 MiB, libtorch init 94 MiB, 360 MiB tensors). Not a measurement: they exercise the paths the
host run cannot (CUDA context band, NVML figures, the torch attribution, non-ok cells) until a real
tests/data/h200-run.json exists."""

import copy
import json
import os

HOST_RUN = os.path.join(os.path.dirname(__file__), "..", "data", "host-run.json")

MIB = 1 << 20
CONTEXT = 527 * MIB
TORCH_INIT = 94 * MIB
TENSOR = 360 * MIB


def _snapshot(requested, allocated, reserved, delta, baseline, process=None):
    return {"requested": requested, "allocated": allocated, "reserved": reserved,
            "device_used": baseline + delta, "device_used_delta": delta, "process_used": process,
            "host_rss": 50 * MIB}


def _device_cell(template, backend, init, marks_figures):
    """marks_figures: (label, requested, allocated, reserved, delta) per mark; process used is
    context + init + delta (the driver and NVML agree to the byte in this made-up world)."""
    cell = copy.deepcopy(template)
    baseline = 600 * MIB
    cell["backend"] = backend
    cell["setup"].update({"memory_space": "device", "context_create_ns": 313_000_000,
                          "device_used_after_context": baseline - init,
                          "process_used_after_context": CONTEXT,
                          "backend_init_process_bytes": init if backend.startswith("torch-") else None,
                          "baseline_device_used": baseline,
                          "device": {"name": "NVIDIA H200 (synthetic)"}})
    steps, marks = [], []
    for label, requested, allocated, reserved, delta in marks_figures:
        after = _snapshot(requested, allocated, reserved, delta, baseline)
        steps.append({"op": "alloc" if requested else "free", "id": "x", "location": f"steps[{len(steps)}]",
                      "bytes": TENSOR, "latency_ns": 100_000, "outcome": "ok", "after": after})
        marks.append({"label": label, "step": len(steps), "at": dict(after, process_used=CONTEXT + init + delta)})
        steps.append({"op": "mark", "id": label, "location": f"steps[{len(steps)}]", "bytes": 0,
                      "latency_ns": 0, "outcome": "ok", "after": after})
    cell["steps"], cell["marks"], cell["releases"] = steps, marks, []
    return cell


def device_run():
    """A results document: cuda-malloc and torch-caching on single-large, a torch cell whose
    NVML figure is below the sum of its parts, an unavailable cell, an oom cell."""
    with open(HOST_RUN) as f:
        host = json.load(f)
    template = next(c for c in host["cells"] if c["workload"] == "single-large")
    cuda = _device_cell(template, "cuda-malloc", 0, [
        ("after-alloc", TENSOR, TENSOR, TENSOR, TENSOR),
        ("after-free-only", 0, 0, 0, 0)])
    torch = _device_cell(template, "torch-caching", TORCH_INIT, [
        ("after-alloc", TENSOR, TENSOR, TENSOR + 2 * MIB, TENSOR + 2 * MIB),
        ("after-free-only", 0, 0, TENSOR + 2 * MIB, TENSOR + 2 * MIB),
        ("after-free-release", 0, 0, 0, 0)])
    # Its release gave back all it could (the effectiveness is its parts' ratio, as memrel checks).
    torch["metrics"]["releases"] = [{"step": 5, "releasable": TENSOR + 2 * MIB,
                                     "returned": TENSOR + 2 * MIB, "effectiveness": 1.0}]
    torch["metrics"]["release_effectiveness"] = 1.0
    squeezed = _device_cell(template, "torch-expandable", TORCH_INIT, [
        ("after-alloc", TENSOR, TENSOR, TENSOR, TENSOR)])
    squeezed["marks"][0]["at"]["process_used"] = CONTEXT + TENSOR - 8 * MIB  # negative remainder
    unavailable = copy.deepcopy(template)
    unavailable.update({"backend": "cuda-async", "status": "unavailable", "reason": "no CUDA device (synthetic)",
                        "marks": [], "steps": [], "releases": []})
    oom = _device_cell(template, "cuda-malloc", 0, [("after-alloc", TENSOR, TENSOR, TENSOR, TENSOR)])
    oom["workload"] = "huge"
    oom["status"], oom["reason"] = "oom", "step 1: cannot allocate 4 GiB (synthetic)"
    failed = copy.deepcopy(oom["steps"][0])
    failed.update({"location": "steps[2]", "bytes": 4096 * MIB, "outcome": "oom"})
    oom["steps"].append(failed)
    context = dict(host["context"], gpu="NVIDIA H200 (synthetic)", driver_version="580.159.04")
    return {"schema": "memrel.results/1", "context": context,
            "cells": [cuda, torch, squeezed, unavailable, oom]}
