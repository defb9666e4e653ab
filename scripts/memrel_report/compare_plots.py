"""Charts that compare backends: a verdict (one axis, the best marked), latency by operation
(every backend on one scale), and a trace's reserved curves over its requested curve.

Honest by construction: host and device backends are drawn apart (a host backend's memory is
its RSS, not a GPU's); "not applicable" is a neutral grey band with the reason, never a bar at
0; colours are the Okabe-Ito palette (told apart with colour blindness), and the best is marked
by shape and text as well as colour. Every figure is checked for touching labels by
layout.text_overlaps in the tests.
"""

import math

from . import matplotlib_defaults  # noqa: F401  (first: matplotlib as it comes, not the folder's)
import matplotlib
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from . import layout, plots, verdicts
from .units import mib, size_label

SPACE_COLORS = {"device": layout.OKABE_ITO["blue"], "host": layout.OKABE_ITO["vermillion"]}
BEST_COLOR = layout.OKABE_ITO["bluish green"]
NA_GREY = "#d9d9d9"
NA_TEXT = "#555555"
ROW_INCH = 0.205


def _value_text(verdict, value):
    if value is None:
        return ""
    if verdict.unit == "bytes":
        m = mib(value)
        return f"{m:,.0f} MiB" if abs(m) >= 100 else f"{m:,.2f} MiB"
    if verdict.unit == "us":
        return f"{value:.3g} µs"
    return f"{value:.2f}"


def _x(verdict, value):
    return mib(value) if verdict.unit == "bytes" else value


def _scale(verdict, ax, lows, highs):
    """One axis for every panel of the chart: fixed 0..1 for a fraction, log for latencies and for
    ratios or bytes spanning more than 30x, symmetric log for bytes that cross zero widely."""
    lo, hi = min(lows), max(highs)
    if verdict.unit == "fraction":
        ax.set_xlim(-0.03, 1.03)
        ax.xaxis.set_major_locator(FixedLocator([0, 0.25, 0.5, 0.75, 1.0]))
        return "linear"
    if verdict.unit == "us" or (verdict.unit == "ratio" and hi / max(lo, 1e-9) > 30):
        lo, hi = max(lo, 1e-6), max(hi, 1e-6)
        ticks = plots.decade_ticks(lo, hi)
        ax.set_xscale("log")
        ax.set_xlim(ticks[0], ticks[-1])
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        return "log"
    if verdict.unit == "bytes" and hi - lo > 30 * max(1.0, min(abs(lo), abs(hi)) if lo > 0 else 1.0):
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(min(0.0, lo * 1.5), hi * 1.5 if hi > 0 else 1.0)
        ax.xaxis.set_major_locator(FixedLocator(symlog_ticks(lo, hi)))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        return "symlog"
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    pad = (hi - lo) * 0.06 or max(abs(hi) * 0.06, 0.05)
    ax.set_xlim(min(lo - pad, 0.0 if verdict.unit == "bytes" else lo - pad), hi + pad)
    return "linear"


def symlog_ticks(low, high, most=4):
    """Ticks of a symmetric log MiB axis (linear within ±1): 0, the decades above it (every
    other one or sparser when there are more than `most`), and one below zero when the data
    goes there."""
    ticks = [0.0]
    if high > 1:
        top = math.ceil(math.log10(high))
        step = max(1, math.ceil((top + 1) / most))
        ticks += [10.0 ** k for k in range(0, top + 1, step)]
    if low < -1:
        ticks.insert(0, -(10.0 ** math.ceil(math.log10(-low))))
    elif low < 0:
        ticks.insert(0, -1.0)
    return ticks


def verdict_chart(verdict, out_dir):
    with matplotlib.rc_context(plots._RC):
        return plots._save(draw_verdict(verdict), out_dir, f"verdict-{verdict.key}", verdict.question)


def draw_verdict(verdict):
    """One verdict: a row per backend, device backends above host backends in panels of their own
    on one shared axis; a dot at the backend's figure, a line from its lowest to its highest, the
    best drawn as a green star and named "best" in its value label; n/a rows a grey band with
    the reason."""
    with matplotlib.rc_context(plots._RC):
        spaces = verdict.spaces()
        counts = [sum(1 for e in verdict.entries if e.space == s) for s in spaces]
        height = sum(counts) * ROW_INCH + 0.45 * len(spaces) + 0.7
        fig = plots._new_figure(6.2, height)
        axes = fig.subplots(len(spaces), 1, squeeze=False, sharex=True,
                            gridspec_kw={"height_ratios": [c + 0.6 for c in counts]})[:, 0]
        values = [_x(verdict, v) for e in verdict.entries for v in (e.value, e.low, e.high) if v is not None]
        values = values or [0.0, 1.0]
        for ax, space in zip(axes, spaces):
            entries = [e for e in verdict.entries if e.space == space]
            n = len(entries)
            labels, right = [], []
            for row, e in enumerate(entries):
                y = n - 1 - row
                labels.append((y, e.backend))
                if e.value is None:
                    ax.axhspan(y - 0.4, y + 0.4, color=NA_GREY, linewidth=0, zorder=1)
                    right.append((y, e.note or "n/a", NA_TEXT, "normal"))
                    continue
                color = BEST_COLOR if e.best else SPACE_COLORS[space]
                if e.low is not None and e.high is not None and e.count > 1:
                    ax.plot([_x(verdict, e.low), _x(verdict, e.high)], [y, y], color=color, alpha=0.45,
                            linewidth=2.2, solid_capstyle="butt", zorder=2)
                ax.plot([_x(verdict, e.value)], [y], "*" if e.best else "o", color=color,
                        markersize=11 if e.best else 6.5, markeredgecolor="black" if e.best else color,
                        markeredgewidth=0.6, zorder=3)
                text = _value_text(verdict, e.value) + ("  best" if e.best else "")
                if e.note:
                    text += f" ({e.note})"
                right.append((y, text, "black", "bold" if e.best else "normal"))
            ax.set_ylim(-0.6, n - 0.4)
            ax.set_yticks([y for y, _ in labels])
            ax.set_yticklabels([plots._short(t, 26) for _, t in labels])
            for tick, e in zip(ax.get_yticklabels(), entries):
                if e.best:
                    tick.set_fontweight("bold")
            twin = ax.twinx()
            twin.set_ylim(ax.get_ylim())
            twin.set_yticks([y for y, *_ in right])
            twin.set_yticklabels([plots._short(t, 34) for _, t, *_ in right])
            for tick, (_, _, color, weight) in zip(twin.get_yticklabels(), right):
                tick.set_color(color)
                tick.set_fontweight(weight)
            twin.tick_params(axis="y", length=0)
            ax.tick_params(axis="y", length=0)
            ax.grid(axis="x", alpha=0.3)
            ax.set_title(verdicts.SPACE_NAMES[space], fontsize=9, loc="left", color="#333333")
        kind = _scale(verdict, axes[0], values, values)
        axis = verdict.axis + (" (log scale)" if kind == "log" and "log" not in verdict.axis else "")
        axis += " (symmetric log scale)" if kind == "symlog" else ""
        axes[-1].set_xlabel(axis)
        arrow = "→ higher is better" if verdict.better == "higher" else "← lower is better"
        fig.suptitle(f"{verdict.question}  {arrow}", fontsize=10.5)
        return fig


# --- latency by operation: every backend of one space on one scale ----------------------------

def latency_compare_chart(space, series_by_backend, y_range, out_dir):
    with matplotlib.rc_context(plots._RC):
        return plots._save(draw_latency_compare(space, series_by_backend, y_range), out_dir,
                           f"latency-{space}", f"Latency against size: {space} backends")


def draw_latency_compare(space, series_by_backend, y_range):
    """One panel per (operation, mode), a line per backend of `space`, every panel on the same
    log µs axis (y_range: (low, high) shared with the other space's chart and the backend pages)."""
    with matplotlib.rc_context(plots._RC):
        keys = []
        for series in series_by_backend.values():
            for s in series:
                if (s.operation, s.mode) not in keys:
                    keys.append((s.operation, s.mode))
        order = {"pair": 0, "alloc": 1, "free": 2, "release": 3, "churn": 4}
        keys.sort(key=lambda k: (order.get(k[0], 9), k[0], k[1]))
        cols, rows = plots._grid(len(keys), 3)
        fig = plots._new_figure(4.2 * cols + 0.4, 2.9 * rows + 1.3)
        axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
        styles = layout.line_styles(list(series_by_backend))
        ticks = plots.decade_ticks(*y_range)
        for k, (operation, mode) in enumerate(keys):
            ax = axes[k // cols][k % cols]
            sizes = set()
            for backend, series in series_by_backend.items():
                for s in series:
                    if (s.operation, s.mode) != (operation, mode):
                        continue
                    color, marker, dash = styles[backend]
                    ax.plot(s.bytes, s.us, linestyle=dash, marker=marker, color=color, markersize=3.5,
                            linewidth=1.3)
                    sizes.update(s.bytes)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            if len(sizes) > 1:
                ax.xaxis.set_major_locator(FixedLocator(plots.size_ticks(min(sizes), max(sizes), most=4)))
            else:
                ax.set_xticks(sorted(sizes))
                ax.set_xlim(min(sizes) / 2, max(sizes) * 2)
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(int(round(v)))))
            ax.set_ylim(ticks[0], ticks[-1])
            ax.yaxis.set_major_locator(FixedLocator(ticks))
            ax.yaxis.set_minor_locator(NullLocator())
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.set_title(f"{operation}, {mode}", fontsize=10)
            ax.grid(True, alpha=0.3)
            if k % cols == 0:
                ax.set_ylabel("µs")
        for k in range(len(keys), rows * cols):
            axes[k // cols][k % cols].set_visible(False)
        handles = [Line2D([], [], color=c, marker=m, linestyle=d, label=b) for b, (c, m, d) in styles.items()]
        plots._figure_legend(fig, handles, [h.get_label() for h in handles], min(len(handles), 4))
        fig.suptitle(f"Latency against size, {verdicts.SPACE_NAMES[space]}: one µs scale for every panel\n"
                     "x: bytes per block (release: bytes cached; churn: largest block, µs per step)", fontsize=10.5)
        return fig


# --- a trace: every backend's reserved bytes over the requested bytes -------------------------

def trace_chart(chart, out_dir):
    with matplotlib.rc_context(plots._RC):
        return plots._save(draw_trace(chart), out_dir, f"trace-{plots.slug(chart.trace)}",
                           f"Trace {chart.trace}: reserved over requested")


def draw_trace(chart):
    """site_data.TraceChart: one panel per (space, scale), x the trace's events, y MiB: the
    requested curve black and thick, the recording allocator's reserved curve (scale 1 only)
    dashed grey, each backend's reserved bytes (device used Δ where the allocator keeps no
    reserved figure) as a line of its own."""
    with matplotlib.rc_context(plots._RC):
        panels = chart.panels
        fig = plots._new_figure(9.5, 3.3 * len(panels) + 1.2)
        axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
        styles = layout.line_styles([line.backend for p in panels for line in p.lines])
        for ax, panel in zip(axes, panels):
            handles = ax.plot(panel.events, [mib(b) for b in panel.requested], color="black", linewidth=2.6,
                              label="requested (live)", zorder=2, drawstyle="steps-post")
            if panel.recorded is not None:
                handles += ax.plot(panel.recorded[0], [mib(b) for b in panel.recorded[1]], color="#777777",
                                   linestyle=(0, (4, 2)), linewidth=1.4, drawstyle="steps-post",
                                   label="reserved when recorded", zorder=4)
            for line in panel.lines:
                color, _, dash = styles[line.backend]
                ys = [math.nan if v is None else mib(v) for v in line.values]
                handles += ax.plot(line.events, ys, color=color, linestyle=dash, linewidth=1.3,
                                   drawstyle="steps-post", zorder=3,
                                   label=line.backend + ("" if line.series == "reserved" else " (device used Δ)"))
            ax.set_xlim(0, max(panel.events[-1], 1) if panel.events else 1)
            plots._mib_axis(ax)
            ax.set_xlabel("events replayed")
            ax.grid(alpha=0.3)
            ax.set_title(f"{verdicts.SPACE_NAMES[panel.space]}; sizes scaled {panel.scale}", fontsize=10, loc="left")
            # The labels given: matplotlib's own pick leaves out a name beginning with "_".
            ax.legend(handles, [h.get_label() for h in handles], loc="upper left",
                      bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
        fig.suptitle(f"Trace {chart.trace}: reserved bytes of every backend over the requested bytes", fontsize=11)
        return fig
