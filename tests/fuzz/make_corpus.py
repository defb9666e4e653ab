#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus, tests/fuzz/corpus/<target>/: the shipped files (small
ones whole, the large samples cut down to a few cells or benchmarks) and the bad inputs the tests
use, each a file. Committed; rerun after a format changes:  python3 tests/fuzz/make_corpus.py"""

import copy
import json
import os
import shutil
import struct

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")


def _dir(target):
    path = os.path.join(OUT, target)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def _put(target_dir, name, content):
    mode = "wb" if isinstance(content, bytes) else "w"
    with open(os.path.join(target_dir, name), mode) as f:
        f.write(content)


def _read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def workloads():
    d = _dir("workload")
    folder = os.path.join(ROOT, "benchmarks", "workloads")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):  # the folder's traces seed the trace target
            _put(d, name, _read("benchmarks", "workloads", name))
    good = json.loads(_read("benchmarks", "workloads", "fragmentation.json"))
    _put(d, "bad-duplicate-key.json", '{"schema": "memrel.workload/1", "name": "a", "name": "b", "steps": []}')
    _put(d, "bad-huge-number.json", '{"schema": "memrel.workload/1", "name": "a", "steps": [{"alloc": "x", "bytes": 1e400}]}')
    _put(d, "bad-bytes-beyond-64-bits.json", '{"schema": "memrel.workload/1", "name": "a", "steps": [{"alloc": "x", "bytes": 18446744073709551616}]}')
    _put(d, "bad-negative.json", '{"schema": "memrel.workload/1", "name": "a", "steps": [{"alloc": "x", "bytes": -4096}, {"free": "x"}]}')
    _put(d, "bad-double-free.json", '{"schema": "memrel.workload/1", "name": "a", "steps": [{"alloc": "x", "bytes": 1}, {"free": "x"}, {"free": "x"}]}')
    _put(d, "bad-repeat.json", '{"schema": "memrel.workload/1", "name": "a", "steps": [{"repeat": 1000000000, "steps": [{"mark": "m"}]}]}')
    bad = copy.deepcopy(good)
    bad["steps"].insert(0, {"free_many": "g", "every": 0})
    _put(d, "bad-free-many.json", json.dumps(bad))


def backend_files():
    d = _dir("backend_file")
    for name in sorted(os.listdir(os.path.join(ROOT, "benchmarks", "backends"))):
        _put(d, name, _read("benchmarks", "backends", name))
    good = json.loads(_read("benchmarks", "backends", "pluggable-host-example.json"))
    for key, value, name in (("space", 3, "bad-type"), ("alocated", "x", "bad-key"),
                             ("name", "host-malloc", "bad-builtin-name"),
                             ("environment", {"1X": "y"}, "bad-environment")):
        bad = dict(good)
        bad[key] = value
        _put(d, name + ".json", json.dumps(bad))
    _put(d, "bad-duplicate-key.json", '{"schema": "memrel.backend/1", "space": "host", "space": "device"}')
    # memrel's other kinds where a backend file goes (the fifty-first pass, c10-trace-as-backend-file)
    _put(d, "bad-a-trace.memtrace",
         _read("benchmarks", "workloads", "trace-rmm-log-convnet-on-rmm-pool.memtrace")[:64])
    _put(d, "bad-a-journal.json", '{"schema": "memrel.journal/1", "run": {}, "context": {}}\n{"index": 0}\n')


def _small_results():
    doc = json.loads(_read("tests", "data", "host-run.json"))
    cells = [c for c in doc["cells"] if c["status"] == "ok"][:2]
    cells += [c for c in doc["cells"] if c["status"] != "ok"][:1]
    for c in cells:
        c["steps"] = c["steps"][:3]
    doc["cells"] = cells
    return doc


def results():
    d = _dir("results")
    doc = _small_results()
    _put(d, "host-run-cut.json", json.dumps(doc, indent=0))
    twice = copy.deepcopy(doc)
    crashed = copy.deepcopy(twice["cells"][0])
    crashed["status"], crashed["reason"] = "crashed", "signal 11"
    twice["cells"].append(crashed)
    _put(d, "bad-same-cell-twice.json", json.dumps(twice))
    # A backend's name that splits the subject backend/workload (the tenth adversarial pass).
    slash = copy.deepcopy(doc)
    slash["cells"][0]["backend"] = "host-malloc/x"
    _put(d, "bad-backend-slash.json", json.dumps(slash))
    for value, name in ((2**64, "beyond-64-bits"), (2**63 + 1, "beyond-int64"), (-4096, "negative")):
        bad = copy.deepcopy(doc)
        bad["cells"][0]["metrics"]["peak_reserved"] = value
        _put(d, f"bad-bytes-{name}.json", json.dumps(bad))
    text = json.dumps(doc)
    _put(d, "bad-huge-number.json", text.replace('"wall_ns": ', '"wall_ns": 1e400, "x": ', 1))
    _put(d, "bad-duplicate-key.json", text.replace('"status": "ok"', '"status": "crashed", "status": "ok"', 1))


def benchmark_json():
    d = _dir("benchmark_json")
    _put(d, "gbench-1.7.1-host.json", _read("tests", "data", "compare", "gbench-1.7.1-host.json"))
    _put(d, "gbench-reading-input.json", _read("tests", "data", "gbench-reading", "input.json"))
    doc = json.loads(_read("tests", "data", "compare", "gbench-1.7.1-host.json"))
    neg = copy.deepcopy(doc)
    for e in neg["benchmarks"]:
        if "real_time" in e:
            e["real_time"] = -e["real_time"]
    _put(d, "bad-negative-times.json", json.dumps(neg))
    twice = copy.deepcopy(doc)
    twice["benchmarks"] += copy.deepcopy(doc["benchmarks"])
    _put(d, "bad-benchmark-twice.json", json.dumps(twice))
    big = copy.deepcopy(doc)
    big["benchmarks"][0]["max_bytes_used"] = 1e30
    big["benchmarks"][1]["reserved"] = -1
    _put(d, "bad-byte-counters.json", json.dumps(big))


def _trace(records, marks=(), name="t", device=0, reserved=2 << 20):
    allocs = live = peak = peak_event = 0
    for i, (op, _, size) in enumerate(records):
        if op == 1:
            allocs += 1
            live += size
            if live > peak:
                peak, peak_event = live, i + 1
        else:
            live -= size
    header = {"schema": "memrel.trace/1", "name": name, "device": device, "record_bytes": 16,
              "source": {"format": "rmm-log", "file": name + ".csv"},
              "counts": {"events": len(records), "allocs": allocs, "frees": len(records) - allocs,
                         "blocks": allocs},
              "peak_requested_bytes": peak, "peak_requested_event": peak_event,
              "marks": [{"event": e, "label": l} for e, l in marks],
              "recorded_reserved": {"points": [[0, 0], [len(records), reserved]]}}
    body = json.dumps(header)
    body += " " * ((8 - (16 + len(body)) % 8) % 8)
    out = b"MEMTRACE" + struct.pack("<II", len(body), 16) + body.encode()
    for op, block, size in records:
        out += struct.pack("<B3xIQ", op, block, size)
    return out


def traces():
    d = _dir("trace")
    good = [(1, 0, 4096), (1, 1, 1 << 20), (2, 0, 4096), (1, 2, 512), (2, 1, 1 << 20), (2, 2, 512)]
    _put(d, "small.memtrace", _trace(good, marks=[(2, "oom"), (6, "end")]))
    _put(d, "empty.memtrace", _trace([]))
    _put(d, "bad-double-free.memtrace", _trace([(1, 0, 8), (2, 0, 8), (2, 0, 8)]))
    _put(d, "bad-truncated.memtrace", _trace(good)[:-5])
    _put(d, "bad-magic.memtrace", b"NOTTRACE" + _trace(good)[8:])
    # A device index past any CUDA device's (the eleventh adversarial pass: 2^63 read back wrapped).
    _put(d, "bad-device-2-to-63.memtrace", _trace(good, device=2**63))
    _put(d, "bad-duplicate-key.memtrace", _trace(good).replace(b'"device": 0', b'"device": 0, "device": 1'))
    # Byte figures past what a result holds exactly (the twelfth adversarial pass: every cell of
    # such a trace crashed as its result was refused).
    _put(d, "bad-reserved-past-2-to-53.memtrace", _trace(good, reserved=2**53 + 1))
    _put(d, "bad-peak-past-2-to-53.memtrace",
         _trace([(1, i, 1 << 48) for i in range(33)] + [(2, i, 1 << 48) for i in range(33)]))
    # A real one, recorded on the H200 (the smallest of benchmarks/workloads/trace-*.memtrace).
    name = "trace-convnet-varying-batch-and-size.memtrace"
    with open(os.path.join(ROOT, "benchmarks", "workloads", name), "rb") as f:
        _put(d, name, f.read())


def compare_options():
    d = _dir("compare_options")
    for i, text in enumerate(("0", "4096", "2MiB", "1%", "2MiB,1%", "1.5GiB", "360MiB", "99%",
                              "1e400", "-1", "2MiB,2MiB", "100%", "256TiB", ",", "", ".1", "0.4B")):
        _put(d, f"seed-{i}", text)


def advise_grids():
    """Grids (the default one, and each refusal of tests/python/test_advise.py) and -b lists."""
    d = _dir("advise_grid")
    _put(d, "default-grid.json", _read("benchmarks", "advise", "grid.json"))
    schema = "memrel.advise-grid/1"
    for name, grid in (
            ("bad-schema.json", {"schema": "memrel.advise-grid/2", "configurations": ["host-malloc"]}),
            ("bad-key.json", {"schema": schema, "configuration": ["host-malloc"]}),
            ("bad-entry.json", {"schema": schema, "configurations": ["host-malloc", "host-malloc:top_pad=lots"]}),
            ("bad-not-a-string.json", {"schema": schema, "configurations": [7]}),
            ("bad-empty.json", {"schema": schema, "configurations": []}),
            ("bad-a-results-file.json", {"schema": "memrel.results/1", "context": {}, "cells": []})):
        _put(d, name, json.dumps(grid))
    for i, text in enumerate((
            "torch-native:expandable_segments=True,max_split_size_mb=256",
            "torch-native:a=1,b=2,host-malloc", "host-malloc,host-malloc:trim_threshold=0,top_pad=0",
            "host-malloc:mmap_threshold=1MiB,trim_threshold=0", "torch-expandable:max_split_size_mb=256",
            "rmm-pool:initial=8GiB,maximum=16GiB", "host-malloc:arena_max=0", "host-mallok:trim_threshold=0",
            "torch-native:garbage_collection_threshold=0.6", "torch-native:backend=cudaMallocAsync,expandable_segments=True",
            "host-malloc:trim_threshold=0,trim_threshold=1", ":,=,:=", "host-malloc:",
            # Numbers read as written (the eighty-second adversarial pass): past a bound in far
            # digits, strtod's hex, a leading zero.
            "torch-native:per_process_memory_fraction=1.00000000000000000001",
            "torch-native:per_process_memory_fraction=0x0.8", "host-malloc:arena_max=007")):
        _put(d, f"seed-{i}", text)


if __name__ == "__main__":
    workloads()
    backend_files()
    results()
    benchmark_json()
    traces()
    compare_options()
    advise_grids()
