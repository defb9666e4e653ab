"""The report as a static site: which pages there are and what each holds.

index.html answers first: one verdict per question (verdicts.py), each a chart comparing the
backends on one axis with the best marked and a sentence on what it means and what it does not.
Everything else is one click away: a page per workload, per trace and per backend, the latency
charts on one scale, every cell, the environment. Pages are lists of document blocks; report.py
renders their plots and writes them. report.md (for CI) is the index followed by every page.
"""

from dataclasses import dataclass

from . import downloads, prepare, site_data, tables, verdicts
from .document import Bullets, Grid, Heading, Image, Link, Links, Note, Para, Table, Value


@dataclass(frozen=True)
class PlotJob:
    """A plot to render: <module>.<function>(*args, out_dir). Picklable, so workers can draw it."""

    module: str
    function: str
    args: tuple


@dataclass
class Page:
    file: str
    title: str
    blocks: list


def _job(function, *args, module="plots"):
    return Image(PlotJob(module, function, args))


def _fmt(verdict, value):
    if value is None:
        return "n/a"
    if verdict.unit == "bytes":
        return f"{value / 2**20:,.2f} MiB"
    if verdict.unit == "us":
        return f"{value:.3g} µs"
    return f"{value:.2f}"


def _best_text(verdict, space, most=3):
    best = verdict.best(space)
    entries = [e for e in verdict.entries if e.space == space]
    if not entries:
        return "not measured"
    if not best:
        known = [e for e in entries if e.value is not None]
        if len(known) == 1:
            return f"{known[0].backend} ({_fmt(verdict, known[0].value)}; the only one measured)"
        return "n/a: " + (entries[0].note.removeprefix("n/a: ") if entries[0].note else "no figure")
    if verdict.tradeoff and len(best) > 1:
        # No winner on one axis where two trade off: the frontier, cheapest per event first.
        ends = sorted(best, key=lambda e: e.cost)
        shown = "; ".join(f"{e.backend} {_fmt(verdict, e.value)} at {e.cost:.3g} {verdict.tradeoff}"
                          for e in ends[:most])
        return f"trade-off: {shown}" + (f" and {len(ends) - most} more" if len(ends) > most else "")
    names = [e.backend for e in best]
    shown = ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
    return f"★ {shown} ({_fmt(verdict, best[0].value)})"


def verdict_table(items):
    spaces = [s for s in verdicts.SPACES if any(s in v.spaces() for v in items)]
    headers = ["question"] + [f"best of the {s} backends" for s in spaces] + ["figure (better)"]
    rows = []
    for v in items:
        rows.append([Link(v.question, f"index.html#{v.key}")] + [_best_text(v, s) for s in spaces]
                    + [f"{v.axis} ({v.better})"])
    return Table(headers, rows, anchor="verdict-table")


def verdict_text(items):
    """The verdicts as a short plain-text table for a terminal: a row per question, the best of
    each space. No line at all without verdicts (a history alone): a lone "question" header was
    printed (the fifty-second adversarial pass, c9-report-history-only-bare-question-line)."""
    if not items:
        return []
    width = max([len("question")] + [len(v.question) for v in items])
    spaces = [s for s in verdicts.SPACES if any(s in v.spaces() for v in items)]
    lines = [f"{'question':<{width}}" + "".join(f"  {'best ' + s + ' backend':<40}" for s in spaces)]
    for v in items:
        cells = []
        for s in spaces:
            text = _best_text(v, s, most=1)
            cells.append(f"  {text if len(text) <= 40 else text[:39] + '…':<40}")
        lines.append(f"{v.question:<{width}}" + "".join(cells))
    return [line.rstrip() for line in lines]


def _caption(v):
    basis = "; ".join(f"{s}: {b}" for s, b in v.basis.items())
    return f"{v.means} {v.does_not}" + (f" Figures: {basis}." if basis else "")


def _status_line(cells):
    counts = {}
    for c in cells:
        counts[c.status] = counts.get(c.status, 0) + 1
    parts = [f"{n} {s}" for s, n in sorted(counts.items(), key=lambda kv: (kv[0] != "ok", kv[0]))]
    return f"{len(cells)} cells: " + ", ".join(parts)


def _machine(runs):
    out = []
    for r in runs:
        ctx = r.context
        gpu = ctx.get("gpu")
        where = gpu if isinstance(gpu, str) and gpu else f"no GPU ({ctx.get('host', 'host')})"
        out.append(f"{where}, {ctx.get('started', '?')}")
    return "; ".join(out)


def nav_links(has_traces, has_latency):
    links = [Link("Verdicts", "index.html"), Link("Workloads", "workloads.html")]
    if has_traces:
        links.append(Link("Traces", "traces.html"))
    links.append(Link("Backends", "backends.html"))
    if has_latency:
        links.append(Link("Latency", "latency.html"))
    links += [Link("All cells", "cells.html"), Link("Environment", "environment.html"),
              Link("Downloads", "downloads.html")]
    return links


def pages(inputs, out_dir):
    """Every page of the site, as blocks (plots not yet rendered), and the data files written."""
    cells = inputs.cells
    spaces = verdicts.backend_spaces(inputs.runs, cells, inputs.bench)
    points, skipped = prepare.latency_points(inputs.bench) if inputs.bench else ([], [])
    items = verdicts.all_verdicts(cells, spaces, points)
    work = site_data.workload_cells(cells)
    traces = site_data.trace_cells(cells)
    ran = [c for c in cells if c.status != "unavailable"]
    groups = site_data.not_run_groups(cells)
    files = {"verdicts": downloads.verdicts(out_dir, items), "metrics": downloads.metrics(out_dir, cells)}
    if points:
        files["latency"] = downloads.latency(out_dir, points)
    out = []

    # --- index: the answer first ----------------------------------------------------------------
    blocks = [Para(f"{_machine(inputs.runs)}. {_status_line(cells)}"
                   + (f" ({len(groups)} reason{'s' if len(groups) != 1 else ''} why cells could not run here: "
                      "see All cells)" if groups else "") + ". Host and device backends are compared apart.")]
    blocks.append(Heading(2, "Verdicts"))
    if items:
        blocks.append(verdict_table(items))
    else:
        blocks.append(Note("No verdict: no cell finished ok here, so no question can be answered (All cells says "
                           "why each could not run)."))
    problems = site_data.problem_cells(cells)
    if problems:
        blocks.append(Note("Did not finish ok: " + "; ".join(
            f"{c.label} on {c.workload}: {c.status}" + (f" ({c.reason[:120]})" if c.reason else "")
            for c in problems[:6]) + (f"; and {len(problems) - 6} more (All cells)" if len(problems) > 6 else "")))
    if inputs.verdict is not None:
        blocks.append(Para(f"Gate verdict ({inputs.verdict.path}): {inputs.verdict.summary_line()}. "
                           "In full on the Environment page."))
    if items:
        blocks.append(Heading(2, "Each question"))
        charts = [_job("verdict_chart", v, module="compare_plots") for v in items]
        blocks.append(Grid(charts, [_caption(v) for v in items], [v.key for v in items]))
    blocks += [Heading(2, "Drill down"), Links(
        [Link(w, site_data.page_name("workload", w), "(workload)") for w in prepare.workloads(work)]
        + [Link(t, site_data.page_name("trace", t), "(trace)") for t in prepare.workloads(traces)]
        + [Link(b, site_data.page_name("backend", b), "(backend)") for b in prepare.backends(ran)])]
    blocks.append(Para("Numbers beside the pictures: " + ", ".join(files["verdicts"]) + ", " + files["metrics"]
                       + " (Downloads page: every file)."))
    # "and fastest" only where benchmarks were read: without them nothing here measured speed.
    fastest = ", and fastest" if any(v.unit == "us" for v in items) else ""
    out.append(Page("index.html", f"memrel report: which allocator gives memory back best{fastest}", blocks))

    # --- workloads ----------------------------------------------------------------------------
    listing = []
    for w in prepare.workloads(work):
        wc = [c for c in work if c.workload == w]
        listing.append(Link(w, site_data.page_name("workload", w), f"({_status_line(wc)})"))
        out.append(_workload_page(inputs, w, wc, out_dir))
    out.append(Page("workloads.html", "Workloads", [Links(listing)] if listing else [Para("No workload cells.")]))

    # --- traces -------------------------------------------------------------------------------
    if traces:
        listing = []
        for t in prepare.workloads(traces):
            tc = [c for c in traces if c.workload == t]
            listing.append(Link(t, site_data.page_name("trace", t), f"({_status_line(tc)})"))
            out.append(_trace_page(t, tc, out_dir))
        out.append(Page("traces.html", "Traces", [Links(listing)]))

    # --- backends and latency -----------------------------------------------------------------
    y_range = site_data.latency_range(points)
    by_backend = prepare.latency_series(points) if points else {}
    listing = []
    for b in prepare.backends(ran):
        bc = [c for c in cells if c.label == b]
        listing.append(Link(b, site_data.page_name("backend", b), f"({spaces.get(b, '?')}; {_status_line(bc)})"))
        out.append(_backend_page(inputs, b, bc, spaces, by_backend.get(b), [p for p in points if p.backend == b],
                                 y_range))
    not_here = [b for b in prepare.backends(cells) if b not in prepare.backends(ran)]
    blocks = [Links(listing)]
    if not_here:
        blocks.append(Note(f"Not run here ({len(not_here)}): {', '.join(not_here)}; reasons on All cells."))
    out.append(Page("backends.html", "Backends", blocks))
    if points:
        blocks = [Para("Google Benchmark real time: the median of the repetitions, else the median aggregate, else "
                       "the mean one (docs/benchmark-json.md, the gate's rule); churn: time per step (ns_per_op). "
                       "Every chart, here and on the backend pages, uses one µs scale.")]
        for space, series in site_data.latency_by_space(points, spaces).items():
            blocks.append(_job("latency_compare_chart", space, series, y_range, module="compare_plots"))
        blocks += [Heading(2, "Figures (µs)"), tables.latency(points), Links([Link("latency.csv", files["latency"])])]
        if skipped:
            blocks += [Para(f"{len(skipped)} benchmark entries skipped:"), tables.skipped_benchmarks(skipped)]
        out.append(Page("latency.html", "Latency against size", blocks))

    # --- every cell ---------------------------------------------------------------------------
    blocks = [Para(tables.status_summary(cells))]
    if groups:
        blocks += [Heading(2, "Not run here, once per reason"),
                   Table(["status", "cells", "backends", "workloads", "reason"],
                         [[g.status, str(len(g.pairs)), ", ".join(g.backends()), ", ".join(g.workloads()), g.reason]
                          for g in groups], numeric={1})]
    failed = tables.non_ok_cells([c for c in cells if c.status != "unavailable"])
    if failed:
        blocks += [Heading(2, "Ran and did not finish ok"), failed]
    heat_cells = [c for c in work if c.status != "unavailable"]
    if heat_cells:
        blocks += [Heading(2, "Release effectiveness, every cell"),
                   _job("effectiveness_heatmap", prepare.effectiveness_heatmap(heat_cells, spaces))]
    blocks += [Heading(2, "Metrics per cell"), tables.metrics(ran), Links([Link("metrics.csv", files["metrics"])]),
               Heading(2, "Setup per cell"), tables.setup(ran)]
    out.append(Page("cells.html", "All cells", blocks))

    # --- environment --------------------------------------------------------------------------
    blocks = [Bullets([f"results #{i + 1}: {r.path} ({len(r.cells)} cells)" for i, r in enumerate(inputs.runs)]
                      + [f"benchmarks: {b.path} ({len(b.entries)} entries)" for b in inputs.bench])]
    if inputs.verdict is not None:
        v = inputs.verdict
        blocks += [Heading(2, "Gate verdict"),
                   Para(f"From {v.path} (memrel compare --json): baseline {v.baseline}, current {v.current}. "
                        f"{v.summary_line()}. The rules: docs/gate.md.")]
        for f in v.files:
            blocks += [Heading(3, f.title), tables.gate_rows(f)]
    for i, run in enumerate(inputs.runs):
        blocks += [Heading(2, f"Results #{i + 1}" if len(inputs.runs) > 1 else "Run"), tables.environment(run)]
    out.append(Page("environment.html", "Environment", blocks))
    return out, items, files


def _unavailable_notes(cells):
    return [Note(site_data.describe_group(g)) for g in site_data.not_run_groups(cells)]


def _workload_page(inputs, workload, cells, out_dir):
    ran = [c for c in cells if c.status != "unavailable"]
    source = next((c.raw.get("workload_source") for c in cells if c.raw.get("workload_source")), None)
    blocks = [Para(f"{_status_line(cells)}." + (f" Workload file: {source}." if source else ""))]
    blocks += _unavailable_notes(cells)
    if not ran:
        return Page(site_data.page_name("workload", workload), f"Workload {workload}", blocks)
    blocks += [Heading(2, "Metrics"), tables.metrics(ran)]
    chart = prepare.phase_chart(ran, workload)
    blocks.append(Heading(2, "Memory at each mark"))
    if chart.panels:
        marks_csv = downloads.marks(out_dir, ran, f"marks-{site_data.page_name('workload', workload)[:-5]}.csv")
        blocks += [_job("phase_chart", chart), tables.marks(ran, workload), Links([Link("marks CSV", marks_csv)])]
    for label, status, reason in chart.not_shown:
        blocks.append(Para(f"{label}: {status}, no marks recorded" + (f" ({reason})" if reason else "") + "."))
    torch = prepare.torch_cells(ran)
    if torch:
        blocks += [Heading(2, "Attribution of process memory"),
                   Para("NVML process used = CUDA context + framework init + cache (reserved − allocated) "
                        "+ live (allocated) + remainder, at each mark."),
                   _job("attribution_chart", workload, [prepare.attribution(c) for c in torch])]
    chosen = [c for c in prepare.select_timelines(inputs.cells, inputs.timelines)
              if c.workload == workload and c.status != "unavailable" and not site_data.is_trace(c)]
    if chosen:
        blocks.append(Heading(2, "Memory timelines"))
        blocks += [_job("timeline_chart", prepare.timeline(c)) for c in chosen]
    return Page(site_data.page_name("workload", workload), f"Workload {workload}", blocks)


def _trace_page(trace, cells, out_dir):
    ran = [c for c in cells if c.status != "unavailable"]
    first = next((c.raw["trace"] for c in ran), None) or cells[0].raw["trace"]
    blocks = [Para(f"{_status_line(cells)}. Trace {first.get('file', trace)}: {first.get('events', '?'):,} events "
                   f"from a {first.get('source_format', '?')} ({first.get('source_file', '?')}); replay rules in "
                   "docs/traces.md.")]
    blocks += _unavailable_notes(cells)
    chart = site_data.trace_chart(ran, trace)
    stem = site_data.page_name("trace", trace)[:-5]
    if chart.panels:
        blocks += [Heading(2, "Reserved over requested"), _job("trace_chart", chart, module="compare_plots"),
                   Links([Link("curves CSV", downloads.trace(out_dir, chart, f"{stem}.csv"))])]
    rows = []
    for c in ran:
        t, m = c.raw["trace"], c.raw["metrics"]
        rows.append([c.label, c.status, t.get("scale", "1"), tables._bytes(m["peak_requested"]),
                     tables._bytes(m["peak_reserved"]), tables.fmt_ratio(m["overhead_ratio"], 3),
                     tables._bytes(t.get("held_at_end_bytes")), tables._bytes(m["residual_bytes"]),
                     f"{t.get('ooms', 0):,}", "n/a" if t.get("ns_per_event") is None else f"{t['ns_per_event']:,.0f} ns"])
    if rows:
        blocks += [Heading(2, "Figures"), Table(["backend", "status", "scale", "peak requested", "peak reserved",
                                                 "reserved ÷ requested", "held at end (all freed)", "residual",
                                                 "OOMs", "per event"], rows, numeric=set(range(3, 10)))]
    phase = prepare.phase_chart(ran, trace)
    if phase.panels:
        blocks += [Heading(2, "Marks"), _job("phase_chart", phase), tables.marks(ran, trace),
                   Links([Link("marks CSV", downloads.marks(out_dir, ran, f"marks-{stem}.csv"))])]
    return Page(site_data.page_name("trace", trace), f"Trace {trace}", blocks)


def _backend_page(inputs, backend, cells, spaces, series, points, y_range):
    ran = [c for c in cells if c.status != "unavailable"]
    described = next((b for r in inputs.runs for b in r.context.get("backends", []) or []
                      if isinstance(b, dict) and b.get("name") == cells[0].backend), {})
    blocks = [Para(f"{spaces.get(backend, '?')} backend. {described.get('description', '')} "
                   f"Release: {described.get('release', 'n/a')}. {_status_line(cells)}.".replace("  ", " "))]
    blocks += _unavailable_notes(cells)
    if series:
        blocks += [Heading(2, "Latency against size"),
                   # latency-backend-NAME: a backend named `host` had latency-host, the chart of
                   # every host backend (the twenty-second adversarial pass,
                   # c6-report-backend-named-host-latency-chart).
                   _job("latency_chart", {backend: series}, f"latency-{site_data.page_name('backend', backend)[:-5]}",
                        y_range),
                   tables.latency(points)]
    if ran:
        table = tables.metrics(ran)
        blocks += [Heading(2, "Metrics per workload"),
                   Table(["workload"] + table.headers[2:],
                         [[Link(r[1], site_data.page_name("trace" if site_data.is_trace(c) else "workload", r[1]))]
                          + r[2:] for r, c in zip(table.rows, ran)], numeric=set(range(2, len(table.headers) - 1))),
                   Heading(2, "Setup"), tables.setup(ran)]
    return Page(site_data.page_name("backend", backend), f"Backend {backend}", blocks)


def downloads_page(out_dir):
    import os

    names = sorted(os.listdir(os.path.join(out_dir, downloads.DATA_DIR)))
    return Page("downloads.html", "Downloads", [
        Para("Every figure of the pages as CSV (exact bytes, µs or ns as the column says) and the verdicts as JSON; "
             "pictures as PNG and SVG beside each chart."),
        Links([Link(n, f"{downloads.DATA_DIR}/{n}") for n in names])])


__all__ = ["Page", "PlotJob", "pages", "downloads_page", "nav_links", "verdict_table", "Value"]
