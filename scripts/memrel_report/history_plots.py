"""The history's trend chart: one figure of one backend over the nights, a line per workload
(and machine), every night a point, a night without the figure a gap (NaN breaks the line: no
line drawn through a night that did not measure it), each change point a dashed line at its night
labelled with its commit range. Charts of one question share their y range, and every chart the
same nights on x, so two charts read against each other."""

import math
from dataclasses import dataclass

from .plots import _RC, _new_figure, _save

import matplotlib

_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")
_SCALE = {"bytes": (2**20, "MiB"), "ns": (1000.0, "µs"), "ratio": (1.0, "ratio"), "fraction": (1.0, "fraction")}


@dataclass(frozen=True)
class TrendChart:
    stem: str
    title: str
    unit: str
    nights: tuple            # every night of the history, in order
    lines: tuple             # (label, (value or None per night))
    y_range: tuple           # (low, high) in the unit's raw figures, shared by the question's charts
    marks: tuple             # (night index, label): change points


def trend_chart(chart, out_dir):
    divisor, axis_name = _SCALE[chart.unit]
    with matplotlib.rc_context(_RC):
        fig = _new_figure(9, 3.6)
        ax = fig.add_subplot()
        xs = range(len(chart.nights))
        handles = []
        for i, (label, values) in enumerate(chart.lines):
            ys = [math.nan if v is None else v / divisor for v in values]
            handles += ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.2,
                               color=_PALETTE[i % len(_PALETTE)], label=label)
        low, high = chart.y_range
        pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
        ax.set_ylim((low - pad) / divisor, (high + pad) / divisor)
        for index, text in chart.marks:
            ax.axvline(index - 0.5, color="#D55E00", linestyle="--", linewidth=1)
            ax.annotate(text, (index - 0.5, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                        fontsize=8, va="top", ha="right", color="#D55E00")
        step = max(1, len(chart.nights) // 10)
        ax.set_xticks(list(xs)[::step], [n[5:] for n in chart.nights][::step])
        ax.set_xlim(-0.5, len(chart.nights) - 0.5)
        ax.set_xlabel("night (UTC date)")
        ax.set_ylabel(axis_name)
        ax.set_title(chart.title)
        ax.grid(True, alpha=0.3)
        if chart.lines:
            # The labels given, not matplotlib's pick: it leaves out a label beginning with "_",
            # and a workload `_w` was named nowhere on its chart (the thirty-fourth adversarial
            # pass, c9-report-history-underscore-workload).
            ax.legend(handles, [h.get_label() for h in handles], loc="upper left",
                      bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
        return _save(fig, out_dir, chart.stem, chart.title)
