"""The numbers beside the pictures: CSV (one row per figure, exact bytes, µs) and JSON files in
the report's data/ folder, written with the standard library's csv and json modules."""

import csv
import dataclasses
import json
import os

DATA_DIR = "data"


def _write_csv(out_dir, name, header, rows):
    os.makedirs(os.path.join(out_dir, DATA_DIR), exist_ok=True)
    rel = f"{DATA_DIR}/{name}"
    with open(os.path.join(out_dir, rel), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(["" if v is None else v for v in row] for row in rows)
    return rel


def _write_json(out_dir, name, doc):
    os.makedirs(os.path.join(out_dir, DATA_DIR), exist_ok=True)
    rel = f"{DATA_DIR}/{name}"
    with open(os.path.join(out_dir, rel), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return rel


def verdicts(out_dir, items):
    """verdicts.json (every field of every verdict) and verdicts.csv (one row per backend and
    question). Empty fields in the CSV: not applicable (the note says why)."""
    doc = {"schema": "memrel.verdicts/1", "verdicts": [dataclasses.asdict(v) for v in items]}
    rows = [[v.key, v.question, e.space, e.backend, e.value, e.low, e.high, e.count, "yes" if e.best else "",
             e.note, v.unit, v.better] for v in items for e in v.entries]
    return [_write_json(out_dir, "verdicts.json", doc),
            _write_csv(out_dir, "verdicts.csv", ["question_key", "question", "space", "backend", "value", "low",
                                                  "high", "count", "best", "note", "unit", "better"], rows)]


_METRICS = ("peak_requested", "peak_allocated", "peak_reserved", "peak_device_used_delta", "max_overhead_bytes",
            "overhead_ratio", "utilization", "release_effectiveness", "residual_bytes")


def metrics(out_dir, cells, name="metrics.csv"):
    rows = []
    for c in cells:
        m = c.raw["metrics"]
        lat = m["median_latency_ns"]
        rows.append([c.label, c.workload, c.status, c.raw["setup"]["memory_space"]] + [m.get(k) for k in _METRICS]
                    + [lat.get("alloc"), lat.get("free"), lat.get("release"), c.reason])
    header = ["backend", "workload", "status", "memory_space"] + list(_METRICS) + [
        "median_alloc_ns", "median_free_ns", "median_release_ns", "reason"]
    return _write_csv(out_dir, name, header, rows)


_VIEWS = ("requested", "allocated", "reserved", "device_used", "device_used_delta", "process_used", "host_rss")


def marks(out_dir, cells, name):
    rows = [[c.label, c.workload, m["label"], m["step"]] + [m["at"].get(k) for k in _VIEWS]
            for c in cells for m in c.raw["marks"]]
    return _write_csv(out_dir, name, ["backend", "workload", "mark", "step"] + [f"{k}_bytes" for k in _VIEWS], rows)


def latency(out_dir, points, name="latency.csv"):
    rows = [[p.backend, p.operation, p.mode, p.bytes, p.us, p.source, p.name] for p in points]
    return _write_csv(out_dir, name, ["backend", "operation", "mode", "bytes", "us", "figure", "benchmark"], rows)


def trace(out_dir, chart, name):
    """Every curve of a trace chart, long form: one row per (panel, curve, point)."""
    rows = []
    for p in chart.panels:
        rows += [[p.space, p.scale, "requested", e, b] for e, b in zip(p.events, p.requested)]
        if p.recorded is not None:
            rows += [[p.space, p.scale, "reserved when recorded", e, b] for e, b in zip(*p.recorded)]
        for line in p.lines:
            rows += [[p.space, p.scale, f"{line.backend} {line.series}", e, b] for e, b in zip(line.events, line.values)]
    return _write_csv(out_dir, name, ["space", "scale", "curve", "event", "bytes"], rows)
