"""What the site's pages show beyond prepare.py's plots: cells grouped for pages, unavailable cells
summarised once per reason, trace curves, and the shared latency scale. Pure data, as prepare.py."""

from dataclasses import dataclass, field

from . import prepare, verdicts


def is_trace(cell):
    return cell.raw.get("trace") is not None


def workload_cells(cells):
    return [c for c in cells if not is_trace(c)]


def trace_cells(cells):
    return [c for c in cells if is_trace(c)]


def page_name(kind, name):
    """The page of a workload, trace or backend: 'workload-single-large.html'."""
    return f"{kind}-{prepare.slug(name)}.html"


@dataclass
class ReasonGroup:
    status: str
    reason: str
    pairs: list                 # (backend label, workload)

    def backends(self):
        return prepare.ordered_unique(b for b, _ in self.pairs)

    def workloads(self):
        return prepare.ordered_unique(w for _, w in self.pairs)


def not_run_groups(cells, statuses=("unavailable",)):
    """Cells of these statuses grouped by (status, reason), largest group first: said once each."""
    groups = {}
    for c in cells:
        if c.status in statuses:
            groups.setdefault((c.status, c.reason or "(no reason given)"), []).append((c.label, c.workload))
    out = [ReasonGroup(s, r, pairs) for (s, r), pairs in groups.items()]
    out.sort(key=lambda g: -len(g.pairs))
    return out


def describe_group(group):
    """'84 cells unavailable (cuda-malloc, cuda-async, ... on every workload): no CUDA device: ...'."""
    backends, workloads = group.backends(), group.workloads()
    who = ", ".join(backends[:6]) + (f" and {len(backends) - 6} more" if len(backends) > 6 else "")
    where = ", ".join(workloads[:4]) + (f" and {len(workloads) - 4} more" if len(workloads) > 4 else "")
    return f"{len(group.pairs)} cell{'s' if len(group.pairs) != 1 else ''} {group.status} ({who}; on {where}): {group.reason}"


def problem_cells(cells):
    """Cells that ran and did not finish ok (oom, crashed, timeout, error): each worth a line."""
    return [c for c in cells if c.status not in ("ok", "unavailable")]


# --- traces -----------------------------------------------------------------------------------

@dataclass
class TraceLine:
    backend: str
    series: str           # "reserved", or "device_used_delta" when the allocator keeps no reserved figure
    events: list
    values: list


@dataclass
class TracePanel:
    space: str
    scale: str
    events: list          # of the requested curve
    requested: list
    recorded: object      # (events, bytes) of the recording allocator, scale 1 only; None
    lines: list = field(default_factory=list)


@dataclass
class TraceChart:
    trace: str
    panels: list


def trace_chart(cells, trace):
    """A trace's cells (ok or oom, with a series): one panel per (memory space, scale), since a
    host replay is scaled down to fit and its bytes are not a GPU's."""
    panels = {}
    for c in cells:
        t = c.raw.get("trace")
        if c.workload != trace or t is None or not t.get("series", {}).get("event"):
            continue
        s = t["series"]
        space = c.raw["setup"]["memory_space"]
        key = (space, t.get("scale", "1"))
        panel = panels.get(key)
        if panel is None:
            recorded = t.get("recorded_reserved")
            rec = (recorded["event"], recorded["bytes"]) if recorded and key[1] == "1" else None
            panel = panels[key] = TracePanel(space=space, scale=key[1], events=list(s["event"]),
                                             requested=list(s["requested"]), recorded=rec)
        reserved = s.get("reserved") or []
        use = "reserved" if any(v is not None for v in reserved) else "device_used_delta"
        panel.lines.append(TraceLine(backend=c.label, series=use, events=list(s["event"]), values=list(s[use])))
    order = {"device": 0, "host": 1}
    return TraceChart(trace=trace, panels=[panels[k] for k in sorted(panels, key=lambda k: (order.get(k[0], 2), k[1]))])


# --- latency ----------------------------------------------------------------------------------

def latency_by_space(points, spaces):
    """{space: {backend: [LatencySeries]}} (prepare.latency_series per space)."""
    out = {}
    for space in ("device", "host"):
        chosen = [p for p in points if verdicts.space_of(spaces, p.backend) == space]
        if chosen:
            out[space] = prepare.latency_series(chosen)
    return out


def latency_range(points):
    """(lowest, highest) µs over every point: the one scale every latency chart shares."""
    values = [p.us for p in points if p.us > 0]
    return (min(values), max(values)) if values else (1.0, 10.0)
