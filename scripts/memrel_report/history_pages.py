"""The history's pages (memrel report --history DB): on the index, what changed in the last
nights; a page per question with a trend chart per backend and its change points. Blocks only;
report.py renders the charts (history_plots.trend_chart) and writes the pages."""

import hashlib
import math

from memrel_outputs.percent_text import percent_figure

from .document import Grid, Heading, Image, Link, Links, Note, Para, Table
from .history import GROUPS
from .history_plots import TrendChart
from .prepare import slug
from .site import Page, PlotJob

def page_file(group):
    return f"history-{slug(GROUPS[group][0])}.html"


# Rounds of hashing that backend_file_parts gives names that still agree.
_HASH_ROUNDS = 4


def backend_file_parts(backends):
    """A file-name part per backend, no two alike with letters' case aside. A history holds
    whatever backends its nights ran, so 'Foo' and 'foo' (refused together in one run's report)
    may both be there; their plots were history-latency-Foo.png and history-latency-foo.png, one
    file on a case-insensitive file system or in a zip (the sixteenth adversarial pass,
    c6-history-report-case-only-plot-names). Such names each keep a short hash of themselves,
    again as long as two still agree: a name crafted to equal another's part with its hash
    ('pl-07e0f038' beside 'Pl') made the history refused for good, every later night too (the
    twentieth adversarial pass, c6-history-crafted-backend-collision). Each round asks a crafter
    for another preimage of a hash; ValueError after rounds no one reaches by chance."""
    parts = {b: slug(b) for b in backends}
    for _ in range(_HASH_ROUNDS):
        folded = {}
        for b, part in parts.items():
            folded.setdefault(part.lower(), []).append(b)
        sharing = [group for group in folded.values() if len(group) > 1]
        if not sharing:
            return parts
        for group in sharing:
            for b in group:
                digest = hashlib.sha256(b.encode("utf-8", "surrogatepass")).hexdigest()[:8]
                parts[b] = f"{parts[b]}-{digest}"
    raise ValueError(f"backends {sorted(group)!r} would share one history plot after "
                     f"{_HASH_ROUNDS} rounds of hashing (names crafted to collide)")


def anchor(group, part):
    return f"trend-{slug(GROUPS[group][0])}-{part}"


def _fmt(unit, value):
    if unit == "bytes":
        return f"{value / 2**20:,.2f} MiB"
    if unit == "ns":
        return f"{value / 1000:.3g} µs"
    return f"{value:.3g}"


def _range(p):
    before, after = p["previous_commit"][:10] or "?", p["commit"][:10] or "?"
    return f"{before}..{after}"


def _direction(group, p):
    better = GROUPS[group][3]
    up = p["after"] > p["before"]
    word = "up" if up else "down"
    percent = p.get("change_percent")
    shift = (f"{percent_figure(percent)} %" if isinstance(percent, (int, float)) and math.isfinite(percent)
             else "from 0")
    return f"{word}, {'better' if up == (better == 'higher') else 'worse'} ({shift})"


def change_table(history, points, anchored=True):
    """A row per change point: figure, before, after, commit range, direction."""
    by_metric = {(s.metric, s.machine): s for s in history.series}
    parts = backend_file_parts({s.backend for s in history.series})
    rows = []
    for p in points:
        s = by_metric.get((p["metric"], p["machine"]))
        if s is None:
            continue
        unit = GROUPS[s.group][2]
        figure = Link(p["metric"], f"{page_file(s.group)}#{anchor(s.group, parts[s.backend])}") if anchored else p["metric"]
        rows.append([figure, p["machine"] or "unknown", p["previous_started"][:10] + " → " + p["started"][:10],
                     _fmt(unit, p["before"]), _fmt(unit, p["after"]), _range(p), _direction(s.group, p)])
    return Table(["figure", "machine", "nights", "before (mean)", "after (mean)", "commit range", "direction"],
                 rows, numeric={3, 4})


def index_blocks(history, last):
    """What changed in the last `last` nights: the index's first section."""
    recent = set(history.nights[-last:])
    drawn = {(s.metric, s.machine) for s in history.series}
    points = [p for p in history.changes if p["started"][:10] in recent and (p["metric"], p["machine"]) in drawn]
    blocks = [Heading(2, f"What changed in the last {min(last, len(history.nights))} nights")]
    span = f"{history.nights[0]} to {history.nights[-1]}" if history.nights else "no nights"
    blocks.append(Para(f"History {history.path}: {len(history.nights)} nights ({span}). Change points by Apache "
                       "Otava (E-Divisive means, p ≤ 0.001: docs/history.md); the commit range is the night before "
                       "the shift to the night of it."))
    if history.otava_note:
        blocks.append(Note(history.otava_note))
    if points:
        blocks.append(change_table(history, points))
    else:
        blocks.append(Para("No change point in these nights."))
    blocks += [Para("Trends over the nights, per question:"),
               Links([Link(GROUPS[g][1], page_file(g)) for g in GROUPS if any(s.group == g for s in history.series)])]
    return blocks


def _line_label(s, machines):
    subject = s.metric.rsplit(":", 1)[0]
    figure = s.metric.rsplit(":", 1)[1]
    label = subject.split("/", 1)[1] if "/" in subject else subject
    if s.group == "latency":
        label += " " + figure.removeprefix("median_latency_ns.")
    return label + (f" @{(s.machine or 'unknown')[:8]}" if machines > 1 else "")


def pages(history):
    """A page per question the history holds."""
    out = []
    parts = backend_file_parts({s.backend for s in history.series})
    for group, (key, title, unit, better) in GROUPS.items():
        series = [s for s in history.series if s.group == group]
        if not series:
            continue
        values = [v for s in series for v in s.values.values()]
        y_range = (min(values), max(values))
        blocks = [Para(f"{title} Over {len(history.nights)} nights; {better} is better. Every night a point; a night "
                       "without the figure is a gap. Charts of this page share their y scale. "
                       + ("Latency lines are each one machine (fingerprint): latency compares only within one."
                          if group == "latency" else ""))]
        if history.otava_note:
            blocks.append(Note(history.otava_note))
        for backend in sorted({s.backend for s in series}):
            mine = [s for s in series if s.backend == backend]
            machines = len({s.machine for s in mine})
            points = [p for s in mine for p in s.changes]
            marks = []
            for p in points:
                night = p["started"][:10]
                marks.append((history.nights.index(night), _range(p)))
            lines = tuple((_line_label(s, machines), tuple(s.values.get(n) for n in history.nights)) for s in mine)
            chart = TrendChart(f"history-{slug(key)}-{parts[backend]}", f"{backend}: {key}", unit,
                               tuple(history.nights), lines, y_range, tuple(sorted(set(marks))))
            blocks += [Heading(2, backend),
                       Grid([Image(PlotJob("history_plots", "trend_chart", (chart,)))],
                            anchors=[anchor(group, parts[backend])])]
            if points:
                blocks += [Para(f"Change points of {backend} (dashed on the chart):"),
                           change_table(history, points, anchored=False)]
        out.append(Page(page_file(group), f"History: {title}", blocks))
    return out
