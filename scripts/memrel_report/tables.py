"""The report's tables as rows (document.Table), from the same data the plots draw.

Byte figures show MiB with the exact byte count beneath (report.md: in brackets); times are µs.
"""

import json
import os

from .document import Table, Value
from .units import fmt_bytes, fmt_mib, fmt_ratio, fmt_us, size_label

_MEMORY_FIELDS = (("requested", "requested"), ("allocated", "allocated"), ("reserved", "reserved"),
                  ("device_used_delta", "device used Δ"), ("process_used", "process used (NVML)"),
                  ("device_used", "device used"))


def _bytes(value):
    return Value(fmt_mib(value), None if value is None else fmt_bytes(value))


def _version(value):
    """CUDA versions come as 1000*major + 10*minor (13000 -> '13.0 (13000)')."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1000:
        return f"{value // 1000}.{(value % 1000) // 10} ({value})"
    return "n/a" if value is None else str(value)


def _text(value):
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def environment(run):
    """Key/value rows of one run's context (docs/results-schema.md), known keys first, then any
    others as given."""
    ctx = dict(run.context)
    rows = [("results file", run.path)]

    def take(key, label=None, fmt=_text):
        if key in ctx:
            rows.append((label or key, fmt(ctx.pop(key))))

    take("started")
    take("finished")
    take("host")
    take("kernel")
    if "cpu" in ctx:
        cpu = ctx.pop("cpu")
        count = ctx.pop("cpu_count", None)
        rows.append(("cpu", f"{cpu} ({count} cores)" if count is not None else _text(cpu)))
    note = ctx.pop("gpu_note", None)
    gpu = ctx.pop("gpu", None)
    rows.append(("gpu", _text(gpu) if gpu is not None else f"none{': ' + note if note else ''}"))
    for i, g in enumerate(ctx.pop("gpus", []) or []):
        if isinstance(g, dict):
            total = g.get("total_bytes")
            size = fmt_mib(total, 0) if isinstance(total, int) else "n/a"
            text = f"{g.get('name', '?')}, {size}, {g.get('uuid', '')}"
        else:
            text = _text(g)
        rows.append((f"gpus[{i}]", text))
    take("driver_version", "driver")
    take("cuda_driver_version", "CUDA driver", _version)
    take("cuda_runtime_version", "CUDA runtime", _version)
    take("memrel_version", "memrel")
    if "git_commit" in ctx:
        commit = ctx.pop("git_commit")
        dirty = ctx.pop("git_dirty", False)
        rows.append(("git commit", "n/a (not in git)" if commit is None else commit + (" (dirty)" if dirty else "")))
    options = ctx.pop("options", None)
    if isinstance(options, dict):
        for key, value in options.items():
            if key == "workloads" and isinstance(value, list):
                value = ", ".join(os.path.basename(str(v)) for v in value)
            elif key == "backends" and isinstance(value, list):
                value = ", ".join(str(v) for v in value)
            elif key == "host_capacity_bytes" and _is_whole_bytes(value):
                value = f"{fmt_mib(value, 0)} ({value:,} B)"
            rows.append((f"options.{key}", _text(value)))
    elif options is not None:
        rows.append(("options", _text(options)))
    for key, value in ctx.items():
        rows.append((key, _text(value)))
    return Table(["", "value"], [list(r) for r in rows])


def _is_whole_bytes(value):
    """A byte count as memrel writes one: shown in MiB; anything else as the file says it."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2 ** 53


def status_summary(cells):
    """'14 cells: 12 ok, 2 unavailable'."""
    counts = {}
    for c in cells:
        counts[c.status] = counts.get(c.status, 0) + 1
    parts = [f"{n} {s}" for s, n in sorted(counts.items(), key=lambda kv: (kv[0] != "ok", kv[0]))]
    return f"{len(cells)} cells: " + ", ".join(parts) + "."


def non_ok_cells(cells):
    rows = [[c.label, c.workload, c.status, c.reason or "(no reason given)"] for c in cells if not c.ok]
    return Table(["backend", "workload", "status", "reason"], rows) if rows else None


def marks(cells, workload):
    """Every mark of every cell of one workload: the four views, exact bytes and MiB."""
    headers = ["backend", "mark", "step"] + [title for _, title in _MEMORY_FIELDS]
    rows = []
    for c in cells:
        if c.workload != workload:
            continue
        for m in c.raw["marks"]:
            rows.append([c.label, m["label"], str(m["step"])] + [_bytes(m["at"].get(k)) for k, _ in _MEMORY_FIELDS])
    return Table(headers, rows, numeric=set(range(2, len(headers))))


def metrics(cells):
    """One row per cell: docs/metrics.md's figures."""
    headers = ["backend", "workload", "status", "peak requested", "peak reserved", "max overhead",
               "overhead ratio", "utilization", "release effectiveness", "residual",
               "median alloc", "median free", "median release"]
    rows = []
    for c in cells:
        m = c.raw["metrics"]
        lat = m["median_latency_ns"]
        rows.append([c.label, c.workload, c.status, _bytes(m["peak_requested"]), _bytes(m["peak_reserved"]),
                     _bytes(m["max_overhead_bytes"]), fmt_ratio(m["overhead_ratio"], 4),
                     fmt_ratio(m["utilization"], 4), fmt_ratio(m["release_effectiveness"]),
                     _bytes(m["residual_bytes"]), fmt_us(lat.get("alloc")), fmt_us(lat.get("free")),
                     fmt_us(lat.get("release"))])
    return Table(headers, rows, numeric=set(range(3, len(headers))))


def setup(cells):
    """What each cell paid before its first step: context, backend init, baseline."""
    headers = ["backend", "workload", "memory", "context create", "context (NVML)",
               "backend init", "init device Δ", "init process Δ", "baseline device used"]
    rows = []
    for c in cells:
        s = c.raw["setup"]
        ctx_ns = s.get("context_create_ns")
        rows.append([c.label, c.workload, s["memory_space"],
                     "n/a" if ctx_ns is None else f"{ctx_ns / 1e6:,.1f} ms",
                     _bytes(s.get("process_used_after_context")),
                     fmt_us(s.get("backend_init_ns")), _bytes(s.get("backend_init_device_bytes")),
                     _bytes(s.get("backend_init_process_bytes")), _bytes(s.get("baseline_device_used"))])
    return Table(headers, rows, numeric=set(range(3, len(headers))))


def latency(points):
    """Benchmarks as a grid: one row per (backend, operation, mode), one column per size, µs."""
    sizes = sorted({p.bytes for p in points})
    grid = {}
    for p in points:
        grid.setdefault((p.backend, p.operation, p.mode), {})[p.bytes] = p
    headers = ["backend", "operation", "mode"] + [size_label(s) for s in sizes]
    rows = []
    for (backend, operation, mode), by_size in grid.items():
        rows.append([backend, operation, mode] +
                    [fmt_us(by_size[s].us * 1000) if s in by_size else "" for s in sizes])
    return Table(headers, rows, numeric=set(range(3, len(headers))))


def skipped_benchmarks(skipped):
    return Table(["benchmark", "why skipped"], [[n, w] for n, w in skipped])


def gate_rows(file_verdict):
    """One file's rows of the gate's verdicts (gate_verdict.FileVerdict), as the gate gave them:
    the change, the rank test's p-value and the reason in columns of their own."""
    rows = [[f"{r.subject} · {r.metric}", r.baseline, r.current, r.change,
             "" if r.p_value is None else f"{r.p_value:.2g}", r.verdict, r.reason]
            for r in file_verdict.rows]
    return Table(["subject · metric", "baseline", "current", "change", "p", "verdict", "reason"], rows)
