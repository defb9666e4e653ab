"""The report's answer: one verdict per question, each a comparison of backends on one axis.

Pure data, like prepare.py: nothing here draws or formats for a page, so the tests compare a
verdict with the cells it came from. Host and device backends are never ranked together: a host
backend's "device used" is its resident set size, measured against a nominal capacity, not a
GPU's memory. Every figure here is a figure of docs/metrics.md or of a benchmark, summarised
over workloads (median, with the lowest and highest beside it) or over sizes (geometric mean);
None is "not applicable" and says why, never 0.
"""

import math
import statistics
from dataclasses import dataclass, field

SPACES = ("device", "host")
SPACE_NAMES = {"device": "device backends (driver: cudaMemGetInfo)",
               "host": "host backends (resident set size)"}


@dataclass
class Entry:
    """One backend's figure for one question."""

    backend: str
    space: str            # device, host
    value: object         # float, or None: not applicable (see note)
    low: object = None    # the lowest and highest of what the value summarises (None: one figure)
    high: object = None
    count: int = 0        # how many figures (workloads, sizes, traces) the value summarises
    note: str = ""        # why n/a, or what a figure needs said (OOMs)
    best: bool = False    # the best; with a trade-off (Verdict.tradeoff), on the frontier
    cost: object = None   # the second axis of a trade-off (trace replay: µs per event), or None


@dataclass
class Verdict:
    key: str              # file-name-safe
    question: str         # the question, as a reader asks it
    axis: str             # the axis label, with its unit
    unit: str             # "ratio", "fraction", "bytes", "us"
    better: str           # "higher" or "lower"
    log: bool             # log axis (latencies)
    means: str            # what the figure means
    does_not: str         # what it does not mean
    basis: dict = field(default_factory=dict)   # space -> one line: over what the figures were taken
    workloads: dict = field(default_factory=dict)  # space -> the workloads (or traces) summarised
    entries: list = field(default_factory=list)
    # Where two axes trade off (trace replay: reservation against time per event), the second
    # axis's label; the entries marked best are then the frontier, not one winner.
    tradeoff: str = ""

    def best(self, space):
        return [e for e in self.entries if e.space == space and e.best]

    def spaces(self):
        return [s for s in SPACES if any(e.space == s for e in self.entries)]


def backend_spaces(runs, cells, bench=()):
    """backend label -> memory space: from the cells' setup, else the run context's backends,
    else the benchmark files' own word (context.memrel_memory_space): a host backend named
    jemalloc, benchmarked alone, was ranked with the device ones by its name (the twenty-second
    adversarial pass, c10-report-bench-space-by-name)."""
    spaces = {}
    for b in bench:
        backend, space = b.context.get("memrel_backend"), b.context.get("memrel_memory_space")
        if isinstance(backend, str) and space in SPACES:
            spaces[backend] = space
    for run in runs:
        for b in run.context.get("backends", []) or []:
            if isinstance(b, dict) and isinstance(b.get("name"), str) and b.get("space") in SPACES:
                spaces[b["name"]] = b["space"]
    for c in cells:
        space = c.raw["setup"].get("memory_space")
        if space in SPACES:
            spaces.setdefault(c.label, space)
            spaces.setdefault(c.backend, space)
    return spaces


def space_of(spaces, backend):
    """A backend's memory space; one no results file describes (a benchmark of a backend that
    did not run) by its name: memrel's host backends are host-*, null and pluggable-host-*."""
    if backend in spaces:
        return spaces[backend]
    return "host" if backend.startswith(("host", "null", "pluggable-host")) else "device"


def cell_space(spaces, cell):
    """A cell's memory space: as backend_spaces found it, else its own setup's, else (empty: a
    cell that never started, or one edited so) by its backend's name, as space_of tells it. A
    space that is neither drew no chart: "internal error" (the sixty-first adversarial pass,
    c9-report-unknown-memory-space-internal-error)."""
    if cell.label in spaces:
        return spaces[cell.label]
    space = cell.raw["setup"].get("memory_space")
    return space if space in SPACES else space_of(spaces, cell.backend)


def _median_entry(backend, space, values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return Entry(backend=backend, space=space, value=statistics.median(values), low=min(values),
                 high=max(values), count=len(values))


# memrel's null backend hands out no memory: it measures memrel itself, a floor for the others,
# so it is shown as a reference and never named best.
REFERENCE_BACKENDS = {"null": "reference: no allocator"}


def _mark_best(verdict, digits):
    """The best entry of each space (ties at the precision shown are all best); reference
    backends are labelled and not ranked."""
    for e in verdict.entries:
        if e.backend in REFERENCE_BACKENDS and e.value is not None:
            e.note = REFERENCE_BACKENDS[e.backend]
    for space in SPACES:
        entries = [e for e in verdict.entries if e.space == space and e.value is not None
                   and e.backend not in REFERENCE_BACKENDS]
        if len(entries) < 2:
            continue  # one backend is not a comparison
        key = (lambda e: round(e.value, digits)) if verdict.unit != "us" else (lambda e: float(f"{e.value:.3g}"))
        pick = max if verdict.better == "higher" else min
        target = key(pick(entries, key=key))
        for e in entries:
            e.best = key(e) == target


def _workload_cells(cells, spaces):
    """Workload (not trace) cells, by space and backend."""
    out = {}
    for c in cells:
        if c.raw.get("trace") is not None:
            continue
        space = cell_space(spaces, c)
        out.setdefault(space, {}).setdefault(c.label, []).append(c)
    return out


def _common_workloads(by_backend):
    """Workloads every backend of a space that ran at all finished ok: figures over the same set."""
    ran = {b: {c.workload for c in cs if c.ok} for b, cs in by_backend.items()}
    ran = {b: w for b, w in ran.items() if w}
    if not ran:
        return [], {}
    common = set.intersection(*ran.values())
    order = []
    for cs in by_backend.values():
        for c in cs:
            if c.workload in common and c.workload not in order:
                order.append(c.workload)
    return order, ran


def _per_workload_verdict(verdict, cells, spaces, metric, na_reason, digits, basis_note=""):
    """A verdict from one metrics field of each cell: per backend the median over the workloads
    every backend of its space finished ok (the lowest and highest beside it)."""
    for space, by_backend in _workload_cells(cells, spaces).items():
        common, ran = _common_workloads(by_backend)
        if common:
            verdict.basis[space] = (f"median over the {len(common)} workloads every {space} backend finished ok "
                                    "(the line: lowest to highest)" + basis_note)
            verdict.workloads[space] = common
        for backend, cs in by_backend.items():
            if backend not in ran:
                continue  # nothing ran (unavailable here): summarised once, elsewhere
            chosen = [c for c in cs if c.ok and c.workload in common] if common else [c for c in cs if c.ok]
            entry = _median_entry(backend, space, [metric(c) for c in chosen])
            if entry is None:
                note = na_reason(chosen) if callable(na_reason) else na_reason
                entry = Entry(backend=backend, space=space, value=None, count=0, note=note)
            verdict.entries.append(entry)
    _mark_best(verdict, digits)
    return verdict


# The gate's tolerance for an observed byte figure (gate/rules/tolerances.hpp,
# kObservedBytesTolerance: the driver's 2 MiB page). A ratio of bytes that small is noise the gate
# itself ignores: 0.05 of 0.1 MiB says nothing about whether a release gives memory back.
BYTES_TOLERANCE = 2 << 20


def _releases(cell):
    return [r for r in cell.raw["metrics"].get("releases") or [] if (r.get("releasable") or 0) > 0]


def _effectiveness(cell):
    """The cell's release effectiveness over the releases the gate can see (releasable at least
    its byte tolerance), weighted by bytes as docs/metrics.md defines it; None without any."""
    seen = [r for r in _releases(cell) if r["releasable"] >= BYTES_TOLERANCE]
    if not seen:
        return None
    return sum(r.get("returned") or 0 for r in seen) / sum(r["releasable"] for r in seen)


def _effectiveness_na(cells):
    """Why a backend has no release-effectiveness figure: nothing releasable, or too little."""
    small = [r["releasable"] for c in cells for r in _releases(c)]
    if not small:
        return "n/a: nothing releasable"
    return (f"n/a: {min(small) / 2**20:.2f}-{max(small) / 2**20:.2f} MiB releasable, below the gate's "
            f"{BYTES_TOLERANCE >> 20} MiB tolerance: too little to judge")


def release_effectiveness(cells, spaces):
    v = Verdict(
        key="release-effectiveness", question="Does a release give memory back?",
        axis="returned ÷ releasable (1 = all)", unit="fraction", better="higher", log=False,
        means="Of the bytes an allocator held beyond its live data when the workload asked for a release, "
              "the share the driver (host: the kernel) got back. 1.0: everything came back.",
        does_not="n/a: nothing releasable: at every release the allocator held nothing beyond its live data "
                 "(memory was already back, the ideal case), not a failure; or less releasable than the "
                 f"gate's {BYTES_TOLERANCE >> 20} MiB byte tolerance, too little for a ratio to mean anything. "
                 "It says nothing about speed.")
    return _per_workload_verdict(v, cells, spaces, _effectiveness, _effectiveness_na, 2,
                                 f", releases under {BYTES_TOLERANCE >> 20} MiB left out")


def residual(cells, spaces):
    v = Verdict(
        key="residual", question="What stays held after the last release?",
        axis="residual (MiB)", unit="bytes", better="lower", log=False,
        means="Device used (host: RSS) after the workload's last release, minus what it still holds live: "
              "rounding, metadata, caches a release does not empty, leaks.",
        does_not="It is not the peak: an allocator can hold much more while the workload runs. "
                 "n/a: the workload has no release, or the driver's figure was not read.")
    return _per_workload_verdict(v, cells, spaces, lambda c: c.raw["metrics"]["residual_bytes"],
                                 "n/a: no residual measured", 1)


def overhead(cells, spaces):
    v = Verdict(
        key="overhead", question="How much does it reserve for what was asked?",
        axis="peak reserved ÷ peak requested (1 = none extra)", unit="ratio", better="lower", log=False,
        means="The allocator's own peak reservation over the workload's peak of live requested bytes: "
              "1.0 reserves exactly what was asked; 2.0 twice as much.",
        does_not="n/a: the allocator keeps no reserved figure of its own (cudaMalloc and malloc report none). "
                 "It is the allocator's view, not the driver's: see residual and the workload pages.")
    return _per_workload_verdict(v, cells, spaces, lambda c: c.raw["metrics"]["overhead_ratio"],
                                 "n/a: keeps no reserved figure", 2)


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def latency(points, spaces, operation, mode, key, question, means, does_not):
    """Per backend, the geometric mean over the sizes every backend of its space measured for
    operation/mode, in µs (prepare.latency_points figures)."""
    v = Verdict(key=key, question=question, axis="µs (log scale)", unit="us", better="lower", log=True,
                means=means, does_not=does_not)
    by_space = {}
    for p in points:
        if p.operation != operation or p.mode != mode or p.us <= 0:
            continue
        space = space_of(spaces, p.backend)
        by_space.setdefault(space, {}).setdefault(p.backend, {})[p.bytes] = p.us
    for space, by_backend in by_space.items():
        common = sorted(set.intersection(*(set(s) for s in by_backend.values())))
        if not common:
            continue
        from .units import size_label
        what = f"one size ({size_label(common[0])})" if len(common) == 1 else \
            f"geometric mean over the {len(common)} sizes every {space} backend measured " \
            f"({size_label(common[0])} to {size_label(common[-1])}; the line: fastest to slowest size)"
        v.basis[space] = what
        for backend, by_size in by_backend.items():
            values = [by_size[s] for s in common]
            v.entries.append(Entry(backend=backend, space=space, value=_geomean(values), low=min(values),
                                   high=max(values), count=len(values)))
    _mark_best(v, 3)
    return v


def latency_verdicts(points, spaces):
    return [
        latency(points, spaces, "pair", "warm", "latency-warm", "How fast is an allocation it has cached?",
                "Time of one allocate + free of a size the allocator has seen before (Google Benchmark real time, "
                "median of repetitions).",
                "Not the first allocation of a size (see cold), not under fragmentation (see churn)."),
        latency(points, spaces, "pair", "cold", "latency-cold", "How fast is a first allocation?",
                "Time of allocate + free of a size the allocator has not cached: the path to the driver or the OS.",
                "Not the steady state (see warm); a caching allocator pays this once per size."),
        latency(points, spaces, "churn", "warm", "churn", "How fast under churn?",
                "Time per step of a seeded sequence of mixed-size allocations and frees (µs per step).",
                "One sequence and its sizes, not every program; its peak memory is on the backend pages."),
    ]


def trace_replay(cells, spaces):
    """Per backend over trace cells: the median over traces of peak reserved ÷ peak requested; OOMs said."""
    v = Verdict(
        key="trace-replay", question="On real programs' traces, how much does it reserve?",
        axis="peak reserved ÷ peak requested (1 = none extra)", unit="ratio", better="lower", log=False,
        means="Each recorded program's allocations replayed on the backend (docs/traces.md): its peak "
              "reservation over the program's peak of live bytes, median over the traces.",
        does_not="A replay on one stream with no compute: timing and cross-stream reuse differ from the program's. "
                 "A backend with OOMs skipped those allocations: its figure is over what fit.")
    by_backend = {}
    for c in cells:
        trace = c.raw.get("trace")
        if trace is None or c.status not in ("ok", "oom"):
            continue
        space = cell_space(spaces, c)
        by_backend.setdefault((space, c.label), []).append(c)
    traces = sorted({c.workload for cs in by_backend.values() for c in cs})
    for (space, backend), cs in by_backend.items():
        entry = _median_entry(backend, space, [c.raw["metrics"]["overhead_ratio"] for c in cs])
        ooms = sum(int(c.raw["trace"].get("ooms") or 0) for c in cs)
        per_event = [c.raw["trace"].get("ns_per_event") for c in cs]
        if entry is not None and per_event and all(isinstance(x, (int, float)) and x > 0 for x in per_event):
            entry.cost = statistics.median(per_event) / 1000.0
        if entry is None:
            entry = Entry(backend=backend, space=space, value=None, note="n/a: keeps no reserved figure")
        if ooms:
            entry.note = (entry.note + "; " if entry.note else "") + f"{ooms:,} OOMs"
        v.entries.append(entry)
    for space in SPACES:
        if any(e.space == space for e in v.entries):
            v.basis[space] = f"median over the {len(traces)} trace{'s' if len(traces) != 1 else ''}"
            v.workloads[space] = traces
    _mark_best(v, 2)
    _mark_frontier(v, 2)
    return v


def _mark_frontier(verdict, digits):
    """Where every ranked entry of a space has a cost too, the best are the frontier: the backends
    no other beats on both axes (reserves no more and costs no more per event, better on one).
    A backend that reserves exactly what is asked but costs 25 times more per event than a pool
    is one end of a trade-off, not the winner. Several on the frontier: the verdict says so."""
    for space in SPACES:
        ranked = [e for e in verdict.entries if e.space == space and e.value is not None
                  and e.backend not in REFERENCE_BACKENDS]
        if len(ranked) < 2 or any(e.cost is None for e in ranked):
            continue
        def dominated(e):
            a = (round(e.value, digits), float(f"{e.cost:.2g}"))
            for o in ranked:
                b = (round(o.value, digits), float(f"{o.cost:.2g}"))
                if o is not e and b[0] <= a[0] and b[1] <= a[1] and b != a:
                    return True
            return False
        frontier = [e for e in ranked if not dominated(e)]
        for e in ranked:
            e.best = e in frontier
        if len(frontier) > 1:
            verdict.tradeoff = "µs per event"


def all_verdicts(cells, spaces, points):
    """Every question these inputs can answer, in reading order; a question without data is left
    out (no empty chart): latency needs --bench, trace replay needs trace cells."""
    out = [release_effectiveness(cells, spaces), residual(cells, spaces), overhead(cells, spaces)]
    out += latency_verdicts(points, spaces)
    out.append(trace_replay(cells, spaces))
    return [v for v in out if v.entries]
