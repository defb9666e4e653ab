"""Pure data preparation: from what load.py read to exactly what a plot draws or a table shows.

Nothing here draws, formats or touches files, so the tests check the figures drawn against the
figures read by calling these functions directly. Byte figures stay exact integers (plots.py
converts them to MiB); None means the source could not give the figure and is never turned
into 0.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field

from . import gbench
from .units import NS_PER_US

# What the phase chart and the timeline draw, in drawing order, with their legend names.
PHASE_SERIES = ("requested", "allocated", "reserved", "device_used_delta", "process_used")
TIMELINE_SERIES = ("requested", "reserved", "allocated", "device_used_delta")
SERIES_NAMES = {
    "requested": "requested (live)",
    "allocated": "allocated",
    "reserved": "reserved",
    "device_used_delta": "device used Δ (driver; RSS on host)",
    "process_used": "process used (NVML)",
}
# The attribution of NVML's process figure (docs/design.md): context + framework init + cache + live
# + remainder, bottom to top.
ATTRIBUTION_SEGMENTS = ("context", "framework_init", "cache", "live", "remainder")
ATTRIBUTION_NAMES = {
    "context": "CUDA context",
    "framework_init": "framework init",
    "cache": "cache (reserved − allocated)",
    "live": "live (allocated)",
    # What the driver charges beyond context, init and the allocator's segments: on the H200 it
    # is the kernel modules that lazy loading brings in with a program's first kernels (92 MiB
    # after the seeds' first randn), the "unexplained" part of the seeds' nvidia-smi figure.
    "remainder": "remainder: kernel modules loaded on first use",
}
TORCH_PREFIX = "torch-"


def ordered_unique(values):
    seen = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


# The longest slug kept whole (ASCII: characters are bytes). Two slugs, their hashes and the
# longest prefix and suffix ("timeline-A--B-HASH.png") stay well under 255 bytes.
MAX_SLUG_CHARS = 80


def slug(text):
    """A file-name-safe form of a backend or workload name, one per name: a name that had to
    change ('a/b', 'a?b') keeps a short hash of itself, so it never shares a page or a plot with
    another ('a_b'). docs/inputs.md, "Duplicates"."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "unnamed"
    if safe == text and len(safe) <= MAX_SLUG_CHARS:
        return safe
    # A long name is cut and keeps its hash: a 300-character workload name made file names past
    # the file system's 255 bytes ("File name too long", exit 4: d-sanit13).
    return f"{safe[:MAX_SLUG_CHARS]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def joined_slug(*names):
    """One file-name part for a tuple of names (a backend and a workload), one per tuple: their
    slugs joined by '--'. A slug with '-' at an edge or '--' inside makes that join readable two
    ways (('ph-', 'a') and ('ph', '-a') both gave 'ph---a', one cell's timeline drawn over the
    other's: the second adversarial pass), so then a short hash of the whole tuple is added; a
    join without one splits back into its slugs at every '--'."""
    parts = [slug(name) for name in names]
    joined = "--".join(parts)
    if any(p.startswith("-") or p.endswith("-") or "--" in p for p in parts):
        digest = hashlib.sha256(json.dumps(list(names)).encode("utf-8", "surrogatepass"))
        joined += f"-{digest.hexdigest()[:8]}"
    return joined


def colliding_names(names):
    """The first two distinct names that still share a slug (a name crafted to equal another's
    slug with its hash), or whose slugs differ only by case (`a_b`, `A_b`: their pages collide on
    a case-insensitive file system or in a zip of the report, the thirteenth adversarial pass,
    c6-report-case-only-*), or None. The twin of names_sharing_a_page
    (harness/results/report_page_name.cpp)."""
    seen = {}
    for name in names:
        other = seen.setdefault(slug(name).lower(), name)
        if other != name:
            return other, name
    return None


def workloads(cells):
    """Workload names in the order they first occur."""
    return ordered_unique(c.workload for c in cells)


def backends(cells):
    """Backend labels in the order they first occur."""
    return ordered_unique(c.label for c in cells)


def is_torch(cell):
    """PyTorch's allocator, as the run describes the backend (its family); by the name only in
    results that do not say: a host backend named torch-mine had PyTorch's attribution chart
    (the twenty-second adversarial pass, c10-report-torch-by-name)."""
    if cell.kind:
        return cell.kind == "torch"
    return cell.backend.startswith(TORCH_PREFIX) and cell.raw["setup"].get("memory_space") != "host"


# --- 1. phase chart ---------------------------------------------------------------------------

@dataclass
class PhasePanel:
    """One backend's marks in one workload."""

    label: str
    memory_space: str               # device, host
    status: str
    reason: str
    marks: list                     # mark labels, in order
    series: dict                    # PHASE_SERIES name -> [bytes or None per mark]
    context_bytes: object = None    # setup.process_used_after_context; None: no CUDA context (host) or unknown


@dataclass
class PhaseChart:
    workload: str
    panels: list
    not_shown: list = field(default_factory=list)   # (label, status, reason) of cells with no marks


def phase_chart(cells, workload):
    chart = PhaseChart(workload=workload, panels=[])
    for cell in cells:
        if cell.workload != workload:
            continue
        marks = cell.raw["marks"]
        if not marks:
            chart.not_shown.append((cell.label, cell.status, cell.reason))
            continue
        setup = cell.raw["setup"]
        chart.panels.append(PhasePanel(
            label=cell.label,
            memory_space=setup["memory_space"],
            status=cell.status,
            reason=cell.reason,
            marks=[m["label"] for m in marks],
            series={name: [m["at"].get(name) for m in marks] for name in PHASE_SERIES},
            context_bytes=setup.get("process_used_after_context"),
        ))
    return chart


# --- 2. latency vs size -----------------------------------------------------------------------

@dataclass(frozen=True)
class LatencyPoint:
    backend: str
    operation: str
    mode: str
    bytes: int
    us: float
    source: str      # the series' source: "median of N", "median aggregate" or "mean aggregate"
    name: str        # the benchmark's series name (its run_name)


@dataclass
class LatencySeries:
    operation: str
    mode: str
    bytes: list
    us: list


# Why a series that ran has no figure (gbench.read_series: only stddev, cv, BigO... aggregates).
NO_FIGURE = "no figure: no iteration entries, no median or mean aggregate"

# Name parts Google Benchmark appends to a benchmark's own name.
_GB_SUFFIX = re.compile(r"^(real_time|manual_time|process_time|[a-z_]+:.*)$")


def parse_bench_name(run_name):
    """'pair/host-malloc/warm/4096' (Google Benchmark may append '/real_time', '/repeats:3',
    '/threads:1' and the like) -> (operation, backend, mode, bytes), or None if not of that form."""
    parts = run_name.split("/")
    while parts and _GB_SUFFIX.match(parts[-1]):
        parts.pop()
    # ASCII digits: str.isdigit() takes '²' (int() then failed, exit 4) and '٤٠٩٦', read as 4096
    # beside the real 4096 benchmark, which it hid (the forty-second adversarial pass,
    # c4-report-bench-*-size-*). memrel_bench names sizes in ASCII.
    if len(parts) != 4 or not all(parts[:3]) or not re.fullmatch("[0-9]+", parts[3], re.ASCII):
        return None
    operation, backend, mode, size = parts
    return operation, backend, mode, int(size)


def bench_time_us(series, operation):
    """One series' time in µs (a gbench.Series, read by the memrel gbench reading rule,
    docs/benchmark-json.md): its figure, the median real_time of its repetitions; for churn,
    whose iteration is a whole sequence of steps, the time per step (memrel_bench's ns_per_op
    counter, docs/benchmarks.md) when the series has it."""
    if operation == "churn" and "ns_per_op" in series.counters:
        return series.counters["ns_per_op"] / NS_PER_US
    return series.figure_ns / NS_PER_US


def bench_backends(bench_file):
    """The backends whose benchmarks a Google Benchmark file holds (by the names it gives them)."""
    names = (e.get("run_name") or e.get("name") for e in bench_file.entries if isinstance(e, dict))
    return {parsed[1] for parsed in map(parse_bench_name, filter(None, names)) if parsed}


def latency_points(bench_files):
    """One point per benchmark series, its figure by the memrel gbench reading rule
    (gbench.read_series): the median of its repetitions, else its median aggregate, else its
    mean aggregate; in µs (bench_time_us).

    Returns (points, skipped): skipped lists (name, why) for series that could not be used
    (skipped or failed in Google Benchmark, with its message; names not of the form
    operation/backend/mode/bytes; no figure; a benchmark already given by an earlier file)."""
    points, skipped, taken = [], [], {}
    for bench in bench_files:
        for series in gbench.read_series({"benchmarks": bench.entries}, bench.path):
            name = series.name
            if series.skipped is not None:
                skipped.append((name, f"skipped: {series.skipped}"))
                continue
            parsed = parse_bench_name(name)
            if parsed is None:
                skipped.append((name, "name is not operation/backend/mode/bytes"))
                continue
            if series.figure_ns is None:
                skipped.append((name, NO_FIGURE))
                continue
            operation, backend, mode, size = parsed
            key = (backend, operation, mode, size)
            if key in taken:
                skipped.append((name, f"already given by {taken[key]}"))
                continue
            taken[key] = bench.path
            points.append(LatencyPoint(backend=backend, operation=operation, mode=mode, bytes=size,
                                       us=bench_time_us(series, operation), source=series.source,
                                       name=name))
    return points, skipped


def latency_series(points):
    """{backend: [LatencySeries per (operation, mode), points sorted by size]}, backends and
    series in the order they first occur."""
    out = {}
    for p in points:
        series = out.setdefault(p.backend, {}).setdefault(
            (p.operation, p.mode), LatencySeries(p.operation, p.mode, [], []))
        series.bytes.append(p.bytes)
        series.us.append(p.us)
    result = {}
    for backend, by_key in out.items():
        result[backend] = []
        for s in by_key.values():
            pairs = sorted(zip(s.bytes, s.us))
            result[backend].append(LatencySeries(s.operation, s.mode, [b for b, _ in pairs], [u for _, u in pairs]))
    return result


# --- 3. release effectiveness heatmap ---------------------------------------------------------

@dataclass
class Heatmap:
    rows: list      # backend labels
    cols: list      # workloads
    values: list    # [row][col]: effectiveness, or None
    kinds: list     # [row][col]: "value", "na" (nothing releasable), "status" (cell not ok), "none" (no such cell)
    statuses: list  # [row][col]: the cell's status, or None
    row_spaces: list = None  # [row]: "device" or "host" (rows ordered device first), when known


def effectiveness_heatmap(cells, spaces=None):
    """spaces (backend label -> memory space): device backends first, then host ones."""
    rows, cols = backends(cells), workloads(cells)
    row_spaces = None
    if spaces:
        order = {"device": 0, "host": 1}
        rows.sort(key=lambda r: order.get(spaces.get(r), 2))
        row_spaces = [spaces.get(r, "device") for r in rows]
    by_pair = {(c.label, c.workload): c for c in cells}
    values = [[None] * len(cols) for _ in rows]
    kinds = [["none"] * len(cols) for _ in rows]
    statuses = [[None] * len(cols) for _ in rows]
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            cell = by_pair.get((row, col))
            if cell is None:
                continue
            statuses[i][j] = cell.status
            value = cell.raw["metrics"]["release_effectiveness"]
            values[i][j] = value
            if not cell.ok:
                kinds[i][j] = "status"
            elif value is None:
                kinds[i][j] = "na"
            else:
                kinds[i][j] = "value"
    return Heatmap(rows=rows, cols=cols, values=values, kinds=kinds, statuses=statuses, row_spaces=row_spaces)


# --- 4. memory timeline of one cell -----------------------------------------------------------

@dataclass
class Timeline:
    label: str
    workload: str
    status: str
    memory_space: str
    steps: list        # step index (x)
    ops: list          # the op of each step
    series: dict       # TIMELINE_SERIES name -> [bytes or None per step], from steps[].after
    marks: list        # (step index, label)
    releases: list     # step indices of release steps
    ooms: list         # step indices of steps whose outcome was oom


def timeline(cell):
    steps = cell.raw["steps"]
    return Timeline(
        label=cell.label,
        workload=cell.workload,
        status=cell.status,
        memory_space=cell.raw["setup"]["memory_space"],
        steps=list(range(len(steps))),
        ops=[s["op"] for s in steps],
        series={name: [s["after"].get(name) for s in steps] for name in TIMELINE_SERIES},
        marks=[(m["step"], m["label"]) for m in cell.raw["marks"]],
        releases=[i for i, s in enumerate(steps) if s["op"] == "release"],
        ooms=[i for i, s in enumerate(steps) if s["outcome"] == "oom"],
    )


def timeline_cells(cells):
    """The cells a timeline can be drawn for: those with steps, a trace's replay aside (its
    curves are the trace's own chart, on its page)."""
    return [c for c in cells if c.raw["steps"] and c.raw.get("trace") is None]


def select_timelines(cells, wanted):
    """The cells to draw a timeline for: every cell with steps when `wanted` is None, else those
    named "backend/workload" (backend as labelled). Raises ValueError naming an unknown one, and
    a trace's cell, which was offered, taken and drawn nowhere (the twentieth adversarial pass,
    c10-report-timeline-trace-cell-draws-nothing)."""
    drawable = timeline_cells(cells)
    if wanted is None:
        return drawable
    by_name = {f"{c.label}/{c.workload}": c for c in drawable}
    traces = {f"{c.label}/{c.workload}" for c in cells if c.raw.get("trace") is not None}
    chosen = []
    for name in wanted:
        if name in traces:
            raise ValueError(f"'{name}' replays a trace: its curves are the trace's chart, on the "
                             f"trace's page, not a timeline (cells with one: {', '.join(by_name) or 'none'})")
        if name not in by_name:
            raise ValueError(f"no cell '{name}' with steps (cells: {', '.join(by_name) or 'none'})")
        chosen.append(by_name[name])
    return chosen


# --- 5. attribution (torch cells) -------------------------------------------------------------

@dataclass
class AttributionPanel:
    label: str
    marks: list
    process_used: list   # NVML per mark (None: not measured)
    segments: dict       # ATTRIBUTION_SEGMENTS name -> [bytes per mark, None where process_used is None]
    notes: list


def attribution(cell):
    """NVML process used = context + framework init + cache + live + remainder, at each mark.
    cache = reserved − allocated, live = allocated, remainder = what is left (may be negative)."""
    setup = cell.raw["setup"]
    context = setup.get("process_used_after_context")
    init = setup.get("backend_init_process_bytes")
    notes = []
    if context is None:
        notes.append("context size not measured (no NVML): counted in the remainder")
    if init is None:
        notes.append("framework init not measured: counted in the remainder")
    marks = cell.raw["marks"]
    segments = {name: [] for name in ATTRIBUTION_SEGMENTS}
    process = []
    for m in marks:
        at = m["at"]
        used = at.get("process_used")
        process.append(used)
        if used is None:
            for name in ATTRIBUTION_SEGMENTS:
                segments[name].append(None)
            continue
        live = at.get("allocated") or 0
        reserved = at.get("reserved")
        cache = (reserved - live) if reserved is not None else 0
        parts = {"context": context or 0, "framework_init": init or 0, "cache": cache, "live": live}
        parts["remainder"] = used - sum(parts.values())
        for name in ATTRIBUTION_SEGMENTS:
            segments[name].append(parts[name])
    if any(p is None for p in process):
        notes.append("marks without an NVML figure are left empty")
    return AttributionPanel(label=cell.label, marks=[m["label"] for m in marks], process_used=process,
                            segments=segments, notes=notes)


def torch_cells(cells):
    """Torch cells with marks, the ones an attribution can be drawn for."""
    return [c for c in cells if is_torch(c) and c.raw["marks"]]
