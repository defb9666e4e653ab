"""One function per plot. Each draws what a prepare.py function returned and writes PNG + SVG.

Figures are built with matplotlib's object API, never pyplot: no global state, no display, and
savefig picks the Agg (PNG) or SVG canvas itself. Units: bytes are drawn in MiB, times in µs.
Every plot runs under _RC; its fixed SVG hash salt and the dropped date make the SVG files
reproducible, so a re-run on the same results gives the same bytes.
"""

import math
import re
import textwrap
from dataclasses import dataclass

from . import matplotlib_defaults  # noqa: F401  (first: matplotlib as it comes, not the folder's)
import matplotlib
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.textpath import text_to_path
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from . import prepare
from .units import mib, size_label

# The Okabe-Ito palette (layout.OKABE_ITO): told apart with any common colour blindness.
COLORS = {
    "requested": "#000000",
    "allocated": "#0072B2",
    "reserved": "#E69F00",
    "device_used_delta": "#009E73",
    "process_used": "#CC79A7",
    "context": "#56B4E9",
    "framework_init": "#D55E00",
    "cache": "#E69F00",
    "live": "#0072B2",
    "remainder": "#c7c7c7",
}
OPERATION_COLORS = {"pair": "#0072B2", "alloc": "#009E73", "free": "#D55E00",
                    "release": "#CC79A7", "churn": "#E69F00"}
_FALLBACK_COLORS = ("#56B4E9", "#999999", "#F0E442", "#000000")
MODE_STYLES = {"warm": "-", "cold": "--"}

_RC = {"svg.hashsalt": "memrel-report", "font.size": 10, "axes.titlesize": 11,
       "axes.labelsize": 10, "legend.fontsize": 9, "xtick.labelsize": 9, "ytick.labelsize": 9}
PNG_DPI = 100


@dataclass(frozen=True)
class Plot:
    """A written plot: its title and its two files (names relative to the output folder)."""

    title: str
    png: str
    svg: str


slug = prepare.slug  # one file name per name (prepare.py)


def _new_figure(width, height):
    return Figure(figsize=(width, height), layout="constrained")


def _save(fig, out_dir, stem, title):
    png, svg = f"{stem}.png", f"{stem}.svg"
    fig.savefig(f"{out_dir}/{png}", dpi=PNG_DPI)
    fig.savefig(f"{out_dir}/{svg}", metadata={"Date": None})
    return Plot(title=title, png=png, svg=svg)


_MPL_VERSION = tuple(int(p) for p in re.findall(r"\d+", matplotlib.__version__)[:2])


def _figure_legend(fig, handles, labels, ncol):
    """A legend under all panels. matplotlib >= 3.7 places it outside the axes itself
    ("outside lower center"); 3.6 gets a strip reserved at the bottom of the layout."""
    if _MPL_VERSION >= (3, 7):
        return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, frameon=False)
    rows = math.ceil(len(handles) / max(1, ncol))
    strip = min(0.4, (0.28 * rows + 0.15) / fig.get_figheight())
    fig.get_layout_engine().set(rect=(0, strip, 1, 1 - strip))
    return fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, frameon=False)


def _grid(n, max_cols):
    cols = max(1, min(n, max_cols))
    return cols, math.ceil(n / cols)


def _mib_axis(ax):
    ax.set_ylabel("MiB")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 10 or v == 0 else f"{v:.2g}"))


def delta_name(spaces):
    """The legend name of device_used_delta for panels of these memory spaces."""
    spaces = set(spaces)
    if spaces == {"host"}:
        return "RSS Δ (host)"
    if "host" not in spaces:
        return "device used Δ (driver)"
    return prepare.SERIES_NAMES["device_used_delta"]


def _short(text, limit=28):
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- mark charts: a group of bars per mark (phase chart, attribution) --------------------------

MAX_FIG_WIDTH = 15.0    # inches: 1500 px at PNG_DPI
MAX_FIG_HEIGHT = 19.5   # inches: a tall grid of panels has its panels made lower to fit ...
MIN_PANEL_HEIGHT = 1.9  # ... down to this (without mark labels); more rows make a taller figure
MARK_FONT = 8           # points, the mark labels under the bars
VALUE_FONT = 7          # points, values printed upright over bars
_MARK_ROTATION = 45
_SIN_ROTATION = math.sin(math.radians(_MARK_ROTATION))
_PANEL_FRAME = 1.1      # inches of a panel that are not its groups: y tick labels, padding
_MAX_COLS = 3


@dataclass(frozen=True)
class MarkLayout:
    """A grid of panels with a group of bars per mark, and how the mark labels are written."""

    cols: int
    rows: int
    width: float    # of the figure, inches
    height: float
    rotate: bool    # mark labels whole, at _MARK_ROTATION degrees; else across, wrapped at - and :


def _text_width(text, size=MARK_FONT):
    """Inches one line of `text` takes at `size` points in the current font."""
    width, _, _ = text_to_path.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
    return width / 72.0


def legend_width(labels, ncol, size=9):
    """Inches a figure legend of these labels in `ncol` columns (filled column by column, as
    matplotlib does) takes: each column its widest label, a handle and the spacing."""
    per = math.ceil(len(labels) / max(1, ncol))
    columns = [labels[k:k + per] for k in range(0, len(labels), per)]
    return sum(max(_text_width(t, size) for t in col) + 0.55 for col in columns) + 0.4


def _figure_height(rows, row, label_h, extra):
    """`rows` rows of panels `row` high plus their mark labels: lowered to fit MAX_FIG_HEIGHT,
    but not below MIN_PANEL_HEIGHT."""
    height = rows * (row + label_h) + extra
    if height > MAX_FIG_HEIGHT:
        row = max(min(row, MIN_PANEL_HEIGHT), (MAX_FIG_HEIGHT - extra) / rows - label_h)
        height = rows * (row + label_h) + extra
    return height


def mark_layouts(n_panels, mark_lists, group, row, extra, min_width=7.0):
    """The ways to lay out `n_panels` panels, each a group of bars per mark of its list in
    `mark_lists`, most readable first. A group needs `group` inches for its bars (and the values
    printed over them); with its label written across, at least that label's widest wrapped line
    as well. `row` is a panel's height without its mark labels, `extra` the figure's title and
    legend, `min_width` the narrowest the figure may be (its legend). First labels across, in as
    many columns (at most _MAX_COLS) as leave every group that room within MAX_FIG_WIDTH, down to
    one; then labels rotated, likewise; last, always, one column as wide as allowed with rotated
    labels, however little room that leaves."""
    min_width = min(MAX_FIG_WIDTH, max(7.0, min_width))
    labels = [m for marks in mark_lists for m in marks]
    n = max([len(marks) for marks in mark_lists] + [1])
    line = MARK_FONT * 1.3 / 72.0
    wrapped = [_wrap_label(m).split("\n") for m in labels] or [[""]]
    across = max(group, max(_text_width(part) for lines in wrapped for part in lines) + 0.12)
    across_h = max(3, max(len(lines) for lines in wrapped)) * line
    # rotated labels stand `slot * sin` apart, measured across them: at least a line and a bit
    rotated = max(group, 1.25 * line / _SIN_ROTATION)
    rotated_h = max([_text_width(m) for m in labels] + [0.0]) * _SIN_ROTATION + line
    out = []
    for rotate, need, label_h in ((False, across, across_h), (True, rotated, rotated_h)):
        for cols in range(max(1, min(_MAX_COLS, n_panels)), 0, -1):
            if (MAX_FIG_WIDTH / cols - _PANEL_FRAME) / n < need:
                continue
            rows = math.ceil(n_panels / cols)
            width = min(MAX_FIG_WIDTH, max(min_width, cols * max(3.6, n * need + _PANEL_FRAME)))
            height = _figure_height(rows, row, label_h, extra)
            out.append(MarkLayout(cols, rows, width, height, rotate))
    last = MarkLayout(1, max(1, n_panels), MAX_FIG_WIDTH,
                      _figure_height(max(1, n_panels), row, rotated_h, extra), True)
    if not out or not out[-1].rotate or out[-1].cols != 1:
        out.append(last)
    return out


def _mark_ticks(ax, marks, layout):
    """The mark labels under a panel: wrapped across, or whole and rotated (their ends under
    their groups)."""
    ax.set_xticks(range(len(marks)))
    if layout.rotate:
        ax.set_xticklabels(marks, fontsize=MARK_FONT, rotation=_MARK_ROTATION, ha="right",
                           rotation_mode="anchor")
    else:
        ax.set_xticklabels([_wrap_label(m) for m in marks], fontsize=MARK_FONT)


def _overlap(boxes, pad=2.0):
    """Whether any two of these display boxes (pixels) side by side touch."""
    boxes = sorted(boxes, key=lambda b: b.x0)
    return any(a.x1 + pad > b.x0 for a, b in zip(boxes, boxes[1:]))


def _marks_readable(fig, axes):
    """After a draw: no two labels written across under a panel touch."""
    for ax in axes:
        texts = [t for t in ax.get_xticklabels() if t.get_text() and t.get_visible()]
        if _overlap([t.get_window_extent() for t in texts]):
            return False
    return True


def _draw_best(layouts, draw):
    """draw(layout) -> (figure, axes drawn on) for the first layout whose labels do not touch
    (the estimate in mark_layouts can be a little off), else the last one."""
    for k, layout in enumerate(layouts):
        fig, axes = draw(layout)
        if layout.rotate or k == len(layouts) - 1:
            return fig, axes, layout
        fig.draw_without_rendering()
        if _marks_readable(fig, axes):
            return fig, axes, layout
    raise AssertionError("unreachable")


def _fit_value_labels(fig, labelled):
    """Values printed centred over bars, `labelled` = [(axes, [Text])]: where two in a panel would
    touch, that panel's are turned upright (smaller); then each panel's top is raised until its
    labels lie inside it."""
    if not labelled:
        return
    fig.draw_without_rendering()
    turned = False
    for ax, texts in labelled:
        if _overlap([t.get_window_extent() for t in texts]):
            for t in texts:
                t.set_rotation(90)
                t.set_fontsize(VALUE_FONT)
            turned = True
    if turned:
        fig.draw_without_rendering()
    for ax, texts in labelled:
        height = ax.get_window_extent().height
        low, high = ax.get_ylim()
        top = high
        for t in texts:
            room = 1.0 - (t.get_window_extent().height + 4.0) / max(height, 1.0)
            if room > 0.3:
                top = max(top, low + (t.get_position()[1] - low) / room)
        ax.set_ylim(low, top)


# --- 1. phase chart ---------------------------------------------------------------------------

_PHASE_BARS = ("allocated", "reserved", "device_used_delta", "process_used")
_CONTEXT_NAME = "CUDA context (NVML, at setup)"


def phase_chart(chart, out_dir):
    """Grouped bars per mark, one panel per backend: allocated, reserved, device used Δ and NVML
    process used, the requested bytes as a black bar across each group, and the CUDA context
    (setup.process_used_after_context) as a band from 0: the part of process used the context
    alone holds. Many marks: fewer panels a row, then mark labels rotated (mark_layouts)."""
    with matplotlib.rc_context(_RC):
        names = [prepare.SERIES_NAMES[n] for n in ("requested", "allocated", "reserved")]
        names += [delta_name(p.memory_space for p in chart.panels), prepare.SERIES_NAMES["process_used"],
                  _CONTEXT_NAME]
        layouts = mark_layouts(len(chart.panels), [p.marks for p in chart.panels], group=0.65, row=2.95,
                               extra=0.9, min_width=legend_width(names, 3))
        fig, _, _ = _draw_best(layouts, lambda layout: _draw_phase(chart, layout))
        return _save(fig, out_dir, f"phase-{slug(chart.workload)}", f"Memory at each mark: {chart.workload}")


def _draw_phase(chart, layout):
    cols, rows = layout.cols, layout.rows
    fig = _new_figure(layout.width, layout.height)
    axes = fig.subplots(rows, cols, squeeze=False)
    handles = {}
    drawn_bars = []  # (axes, x, MiB) of every bar, to label the ones too short to read
    used = []
    for k, panel in enumerate(chart.panels):
        ax = axes[k // cols][k % cols]
        used.append(ax)
        bars = [name for name in _PHASE_BARS if any(v is not None for v in panel.series[name])]
        width = 0.8 / max(1, len(bars))
        x = list(range(len(panel.marks)))
        if panel.context_bytes is not None:
            h = ax.axhspan(0, mib(panel.context_bytes), color=COLORS["context"], alpha=0.45, lw=0, zorder=0)
            handles["context"] = (h, _CONTEXT_NAME)
        for b, name in enumerate(bars):
            offs = [i - 0.4 + width * (b + 0.5) for i in x]
            values = panel.series[name]
            drawn = [(o, mib(v)) for o, v in zip(offs, values) if v is not None]
            if drawn:
                h = ax.bar([o for o, _ in drawn], [v for _, v in drawn], width * 0.95,
                           color=COLORS[name], zorder=2)
                handles[name] = (h, prepare.SERIES_NAMES[name])
                drawn_bars += [(ax, o, v) for o, v in drawn]
            for o, v in zip(offs, values):
                if v is None:
                    ax.text(o, 0, "n/a", rotation=90, ha="center", va="bottom", fontsize=VALUE_FONT,
                            color="#666666")
        req = panel.series["requested"]
        h = ax.hlines([mib(v) for v in req], [i - 0.42 for i in x], [i + 0.42 for i in x],
                      colors=COLORS["requested"], linewidth=2.2, zorder=3)
        handles["requested"] = (h, prepare.SERIES_NAMES["requested"])
        _mark_ticks(ax, panel.marks, layout)
        pad = 0.6 if len(x) > 1 else 1.1  # a lone group keeps bars of a normal width
        ax.set_xlim(-pad, len(x) - 1 + pad)
        ax.axhline(0, color="#888888", lw=0.6, zorder=1)
        _mib_axis(ax)
        if k % cols:
            ax.set_ylabel("")
        notes = []
        if panel.memory_space == "host":
            notes.append("host: no CUDA context")
        elif panel.context_bytes is None:
            notes.append("context size not measured")
        else:
            notes.append(f"CUDA context {mib(panel.context_bytes):,.0f} MiB (band)")
        if not panel.status == "ok":
            notes.append(f"status {panel.status}")
        ax.set_title(panel.label + ("\n" + "; ".join(notes) if notes else ""), fontsize=10)
        ax.grid(axis="y", alpha=0.3, zorder=0)
    # One scale per memory space, so backends of a kind compare at a glance; host panels keep
    # their own (a device run's device_fraction workloads dwarf the host capacity).
    for space in {p.memory_space for p in chart.panels}:
        group = [axes[k // cols][k % cols] for k, p in enumerate(chart.panels) if p.memory_space == space]
        low = min(ax.get_ylim()[0] for ax in group)
        high = max(ax.get_ylim()[1] for ax in group)
        for ax in group:
            ax.set_ylim(low, high)
    # A small workload beside a 500 MiB CUDA context gives bars a few pixels high: print
    # their value (MiB) above them.
    for ax, x, value in drawn_bars:
        if value > 0 and value < 0.06 * ax.get_ylim()[1]:
            ax.text(x, value, f" {value:,.3g}", rotation=90, ha="center", va="bottom", fontsize=VALUE_FONT,
                    color="#333333", zorder=4)
    for k in range(len(chart.panels), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    order = ["requested", "allocated", "reserved", "device_used_delta", "process_used", "context"]
    if "device_used_delta" in handles:
        h, _ = handles["device_used_delta"]
        handles["device_used_delta"] = (h, delta_name(p.memory_space for p in chart.panels))
    legend = [handles[n] for n in order if n in handles]
    _figure_legend(fig, [h for h, _ in legend], [t for _, t in legend], min(3, len(legend)))
    title = f"Memory at each mark: {chart.workload}"
    if chart.not_shown:
        missing = ", ".join(f"{name} {status}" for name, status, _ in chart.not_shown)
        title += "\n" + textwrap.fill(f"(no marks: {missing})", width=int(fig.get_figwidth() * 11))
    fig.suptitle(title, fontsize=12)
    return fig, used


def _wrap_label(label, width=12):
    """Mark labels are hyphenated phrases, some with a prefix ('huge:after-free-release'): break
    them after a hyphen or a colon."""
    lines, line = [], ""
    for part in re.split(r"(?<=[-:])", label):
        if line and len(line + part) > width:
            lines.append(line)
            line = part
        else:
            line += part
    lines.append(line)
    return "\n".join(lines)


# --- 2. latency vs size -----------------------------------------------------------------------

def _mode_style(mode):
    return MODE_STYLES.get(mode, ":")


def _operation_color(operation, extra):
    if operation in OPERATION_COLORS:
        return OPERATION_COLORS[operation]
    return extra.setdefault(operation, _FALLBACK_COLORS[len(extra) % len(_FALLBACK_COLORS)])


def latency_chart(series_by_backend, stem="latency", y_range=None, out_dir=None):
    """Log-log latency (µs) against size (bytes, labelled in B/KiB/MiB/GiB), one panel per
    backend; colour is the operation, line style the mode (warm solid, cold dashed, seeded
    churn dotted). y_range (low, high) µs: the scale shared with the other latency charts;
    default: this chart's own points."""
    with matplotlib.rc_context(_RC):
        names = list(series_by_backend)
        cols, rows = _grid(len(names), 3)
        fig = _new_figure(min(15.0, max(8.0, 4.6 * cols)), 3.6 * rows + 1.0)
        axes = fig.subplots(rows, cols, squeeze=False)
        extra, ops, modes = {}, {}, {}
        for k, backend in enumerate(names):
            ax = axes[k // cols][k % cols]
            sizes, times = set(), []
            for s in series_by_backend[backend]:
                color = _operation_color(s.operation, extra)
                style = _mode_style(s.mode)
                ops[s.operation] = color
                modes.setdefault(s.mode if s.mode in MODE_STYLES else "seeded (churn)", style)
                ax.plot(s.bytes, s.us, style, color=color, marker="o", markersize=3.5, linewidth=1.5)
                sizes.update(s.bytes)
                times += [t for t in s.us if t > 0]
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.xaxis.set_major_locator(FixedLocator(size_ticks(min(sizes), max(sizes))))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(int(round(v)))))
            if y_range is not None:
                _log_time_axis(ax, *y_range, ticks=decade_ticks(*y_range))
            elif times:
                _log_time_axis(ax, min(times), max(times))
            ax.tick_params(axis="x", labelrotation=35)
            ax.set_xlabel("size")
            ax.set_ylabel("time (µs)")
            ax.set_title(backend)
            ax.grid(True, which="major", alpha=0.3)
        for k in range(len(names), rows * cols):
            axes[k // cols][k % cols].set_visible(False)
        handles = [Patch(color=c, label=op) for op, c in ops.items()]
        handles += [Line2D([], [], color="#444444", linestyle=st, label=m) for m, st in modes.items()]
        _figure_legend(fig, handles, [h.get_label() for h in handles],
                       min(len(handles), 7 if fig.get_figwidth() >= 10 else 5))
        fig.suptitle("Latency against size: Google Benchmark real time (median of repetitions, else mean)\n"
                     "x: bytes per block (release: bytes cached; churn: largest block, µs per step)", fontsize=11)
        title = "Latency against size" + (f": {names[0]}" if len(names) == 1 else "")
        return _save(fig, out_dir, stem, title)


def size_ticks(low, high, most=6):
    """Powers of two from `low` (rounded down) to `high` (rounded up), evenly spaced in log2,
    at most `most` + 1 of them and ending on `high` where a spacing allows: 512 B, 8 KiB,
    128 KiB, ... 512 MiB for a 512 B .. 512 MiB sweep."""
    lo = int(math.floor(math.log2(max(1, low))))
    hi = int(math.ceil(math.log2(max(1, high))))
    span = hi - lo
    step = max(1, math.ceil(span / most))
    for candidate in range(step, max(step, span // 2) + 1):
        if span % candidate == 0:
            step = candidate
            break
    exponents = list(range(lo, hi + 1, step))
    if exponents[-1] != hi:  # no even spacing ends on `high`: end there anyway
        if hi - exponents[-1] >= step / 2:
            exponents.append(hi)
        else:
            exponents[-1] = hi
    return [2.0 ** k for k in exponents]


def time_ticks(low, high, most=8):
    """Ticks for a log µs axis holding [low, high]: the 1-2-5 values from the one below `low`
    to the one above `high` (so no point sits on the frame), or, when that is more than `most`,
    those two ends and the powers of ten between. The first and last tick are the axis limits,
    so both ends are labelled."""
    low = max(low, 1e-6)
    high = max(high, low)
    first = math.floor(math.log10(low)) - 1
    last = math.ceil(math.log10(high)) + 1
    series = [m * 10.0 ** e for e in range(first, last + 1) for m in (1, 2, 5)]
    start = max(i for i, v in enumerate(series) if v < low * (1 - 1e-9))
    end = min(i for i, v in enumerate(series) if v > high * (1 + 1e-9))
    values = series[start:end + 1]
    if len(values) <= most:
        return values
    inner = [v for v in values[1:-1] if abs(math.log10(v) - round(math.log10(v))) < 1e-9]
    return [values[0]] + inner + [values[-1]]


def decade_ticks(low, high):
    """Whole powers of ten from the one at or below `low` to the one at or above `high`: the
    ticks of a log axis shared by several charts (1-2-5 steps crowd: "10000" against "20000")."""
    low, high = max(low, 1e-6), max(high, low, 1e-6)
    ticks = [10.0 ** k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(high) - 1e-9) + 1)]
    return ticks if len(ticks) > 1 else ticks + [ticks[0] * 10]


def _log_time_axis(ax, low, high, ticks=None):
    ticks = ticks or time_ticks(low, high)
    ax.set_ylim(ticks[0], ticks[-1])
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


# --- 3. release effectiveness heatmap ---------------------------------------------------------

_NA_GREY = (0.82, 0.82, 0.82, 1.0)
_STATUS_GREY = (0.45, 0.45, 0.45, 1.0)
_NONE_WHITE = (1.0, 1.0, 1.0, 1.0)


def effectiveness_heatmap(heat, out_dir):
    """Backend x workload; the cell's release effectiveness as colour (cividis: dark 0 .. light 1,
    readable with colour blindness and in grey) and printed; "n/a" on neutral light grey when
    nothing was releasable (memory already back: not a failure, so not a colour of the scale);
    the status on dark grey for cells that did not finish ok; blank where the pair was not run.
    Device backends above, host backends below a rule: their figures are not comparable."""
    with matplotlib.rc_context(_RC):
        cmap = colormaps["cividis"]
        norm = Normalize(vmin=0.0, vmax=1.0, clip=True)
        nr, nc = len(heat.rows), len(heat.cols)
        image = []
        for i in range(nr):
            row = []
            for j in range(nc):
                kind = heat.kinds[i][j]
                if kind == "value":
                    row.append(cmap(norm(heat.values[i][j])))
                else:
                    row.append({"na": _NA_GREY, "status": _STATUS_GREY}.get(kind, _NONE_WHITE))
            image.append(row)
        label_w = max((len(r) for r in heat.rows), default=8) * 0.075
        fig = _new_figure(min(15.0, max(6.5, 1.25 * nc + label_w + 1.8)), 0.55 * nr + 2.6)
        ax = fig.subplots()
        ax.imshow(image, aspect="auto", interpolation="nearest")
        for i in range(nr):
            for j in range(nc):
                kind = heat.kinds[i][j]
                if kind == "value":
                    value = heat.values[i][j]
                    r, g, b, _ = cmap(norm(value))
                    dark = (0.299 * r + 0.587 * g + 0.114 * b) < 0.5
                    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=9,
                            color="white" if dark else "black")
                elif kind == "na":
                    ax.text(j, i, "n/a", ha="center", va="center", fontsize=9, color="#333333")
                elif kind == "status":
                    ax.text(j, i, heat.statuses[i][j], ha="center", va="center", fontsize=9,
                            color="white", fontweight="bold")
                else:
                    ax.text(j, i, "not run", ha="center", va="center", fontsize=8, color="#999999")
        ax.set_xticks(range(nc))
        ax.set_xticklabels([_short(c) for c in heat.cols], rotation=30, ha="right")
        ax.set_yticks(range(nr))
        ax.set_yticklabels(heat.rows)
        ax.set_xticks([x - 0.5 for x in range(1, nc)], minor=True)
        ax.set_yticks([y - 0.5 for y in range(1, nr)], minor=True)
        ax.grid(which="minor", color="white", linewidth=2)
        ax.tick_params(which="minor", length=0)
        spaces = heat.row_spaces or []
        for i in range(1, len(spaces)):
            if spaces[i] != spaces[i - 1]:
                ax.axhline(i - 0.5, color="black", linewidth=2.5)
        if spaces:
            ax.set_yticklabels([f"{r} ({s})" if s == "host" else r for r, s in zip(heat.rows, spaces)])
        ax.set_xlabel("workload")
        ax.set_ylabel("backend (device above, host below the rule)" if len(set(spaces)) > 1 else "backend")
        bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.9)
        bar.set_label("returned / releasable")
        ax.set_title("Release effectiveness: bytes returned / bytes releasable\n"
                     "1.0: all returned; n/a (light grey): nothing releasable, memory already back", fontsize=10)
        return _save(fig, out_dir, "release-effectiveness", "Release effectiveness")


# --- 4. timeline ------------------------------------------------------------------------------

def spread_labels(positions, low, high, min_gap):
    """Label positions for marks at `positions` (sorted), each at least min_gap from the next and
    inside [low, high], moved as little as a forward then a backward pass can: close marks get
    labels side by side, joined to their mark by a leader line."""
    if not positions:
        return []
    gap = min(min_gap, (high - low) / max(1, len(positions) - 1))
    out = list(positions)
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + gap)
    out[-1] = min(out[-1], high)
    for i in range(len(out) - 2, -1, -1):
        out[i] = min(out[i], out[i + 1] - gap)
    out[0] = max(out[0], low)
    return out


def timeline_chart(tl, out_dir):
    """Step-by-step memory of one cell from steps[].after: requested, reserved (shaded),
    allocated and device used Δ as step lines (the figure after step i holds from x = i to
    i + 1); marks as dotted vertical lines labelled above the plot; release steps as triangles,
    OOM steps as red crosses, both on the x axis."""
    with matplotlib.rc_context(_RC):
        fig = _new_figure(9.0, 4.8)
        ax = fig.subplots()
        n = len(tl.steps)
        x = list(range(n + 1))
        dense = n > 80
        widths = {"requested": 2.4, "reserved": 1.6, "allocated": 1.2, "device_used_delta": 1.2}
        styles = {"requested": "-", "reserved": "-", "allocated": "-" if dense else "--",
                  "device_used_delta": "-" if dense else "-."}
        for name in prepare.TIMELINE_SERIES:
            values = tl.series[name]
            if all(v is None for v in values):
                continue
            ys = [math.nan if v is None else mib(v) for v in values]
            ys.append(ys[-1])
            label = delta_name([tl.memory_space]) if name == "device_used_delta" else prepare.SERIES_NAMES[name]
            if name == "reserved":
                ax.fill_between(x, ys, step="post", color=COLORS[name], alpha=0.18, linewidth=0)
            ax.plot(x, ys, styles[name], drawstyle="steps-post", color=COLORS[name],
                    linewidth=widths[name] * (0.7 if dense else 1.0), label=label,
                    zorder=4 if name == "requested" else 3)
        span = max(n, 1)
        ax.set_xlim(0, span)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        marks = sorted(tl.marks, key=lambda m: m[0])  # marks of one step stay in the order recorded
        spots = spread_labels([s for s, _ in marks], 0, span, 0.045 * span)
        for (step, label), spot in zip(marks, spots):
            ax.axvline(step, color="#555555", linestyle=":", linewidth=1, zorder=2)
            ax.annotate(_short(label, 30), xy=(step, 1.0), xycoords=ax.get_xaxis_transform(),
                        xytext=(spot, 1.07), textcoords=ax.get_xaxis_transform(), rotation=40,
                        ha="left", va="bottom", rotation_mode="anchor", fontsize=8, color="#333333",
                        annotation_clip=False,
                        arrowprops=dict(arrowstyle="-", color="#777777", linewidth=0.6, shrinkA=0, shrinkB=0))
        marker_size = 7 if len(tl.releases) <= 30 else 4
        if tl.releases:
            ax.plot([r + 0.5 for r in tl.releases], [0.0] * len(tl.releases), "^", color="#9467bd",
                    markersize=marker_size, transform=ax.get_xaxis_transform(), clip_on=False,
                    label="release step", linestyle="none", zorder=5)
        if tl.ooms:
            ax.plot([o + 0.5 for o in tl.ooms], [0.0] * len(tl.ooms), "x", color="#d62728", markersize=10,
                    mew=2, transform=ax.get_xaxis_transform(), clip_on=False, label="OOM step",
                    linestyle="none", zorder=5)
        ax.set_xlabel("step index")
        _mib_axis(ax)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        sub = f"{tl.memory_space} memory, {n} steps" + (f", status {tl.status}" if tl.status != "ok" else "")
        fig.suptitle(f"Memory timeline: {tl.label} / {tl.workload}\n({sub}; dotted lines: marks)", fontsize=11)
        stem = f"timeline-{prepare.joined_slug(tl.label, tl.workload)}"
        return _save(fig, out_dir, stem, f"Memory timeline: {tl.label} / {tl.workload}")


# --- 5. attribution ---------------------------------------------------------------------------

_NEGATIVE_NAME = "negative remainder"

def attribution_chart(workload, panels, out_dir):
    """Per torch backend of one workload: NVML process used at each mark, stacked as context,
    framework init, cache, live and remainder. A negative remainder (the parts add up to more
    than NVML charges) is drawn hatched, downward from the top of the stack, so the bar's top
    edge is the NVML figure either way. Many marks: fewer panels a row, then mark labels
    rotated (mark_layouts); NVML figures that would touch are written upright."""
    with matplotlib.rc_context(_RC):
        names = [prepare.ATTRIBUTION_NAMES[n] for n in prepare.ATTRIBUTION_SEGMENTS] + [_NEGATIVE_NAME]
        layouts = mark_layouts(len(panels), [p.marks for p in panels], group=0.3, row=2.95, extra=1.0,
                               min_width=legend_width(names, 3))
        holder = {}

        def draw(layout):
            fig, used, holder["labels"] = _draw_attribution(workload, panels, layout)
            return fig, used

        fig, _, _ = _draw_best(layouts, draw)
        _fit_value_labels(fig, holder["labels"])
        return _save(fig, out_dir, f"attribution-{slug(workload)}", f"Attribution of process memory: {workload}")


def _draw_attribution(workload, panels, layout):
    cols, rows = layout.cols, layout.rows
    fig = _new_figure(layout.width, layout.height)
    axes = fig.subplots(rows, cols, squeeze=False)
    used_axes, labelled = [], []
    for k, panel in enumerate(panels):
        ax = axes[k // cols][k % cols]
        used_axes.append(ax)
        tops, texts = [0.0], []
        for i, used in enumerate(panel.process_used):
            if used is None:
                ax.text(i, 0, "no NVML", rotation=90, ha="center", va="bottom", fontsize=MARK_FONT)
                continue
            bottom = 0.0
            for name in prepare.ATTRIBUTION_SEGMENTS:
                value = mib(panel.segments[name][i])
                if value == 0:
                    continue
                if name == "remainder" and value < 0:
                    ax.bar(i, value, 0.6, bottom=bottom, color="none", edgecolor="#d62728",
                           hatch="///", linewidth=0.8, zorder=3)
                    continue
                ax.bar(i, value, 0.6, bottom=bottom, color=COLORS[name], zorder=2,
                       edgecolor="white", linewidth=0.5)
                bottom += value
            top = max(bottom, mib(used))
            tops.append(top)
            texts.append(ax.text(i, top, f"NVML {mib(used):,.0f}", ha="center", va="bottom",
                                 fontsize=MARK_FONT, zorder=4))
        labelled.append((ax, texts))
        ax.set_ylim(0, max(tops) * 1.12 or 1.0)
        _mark_ticks(ax, panel.marks, layout)
        _mib_axis(ax)
        if len(panel.marks) == 1:
            ax.set_xlim(-1.1, 1.1)
        ax.grid(axis="y", alpha=0.3, zorder=0)
        ax.set_title(panel.label + ("\n" + "; ".join(panel.notes) if panel.notes else ""), fontsize=10)
    for k in range(len(panels), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    handles = [Patch(color=COLORS[n], label=prepare.ATTRIBUTION_NAMES[n]) for n in prepare.ATTRIBUTION_SEGMENTS]
    handles.append(Patch(facecolor="none", edgecolor="#d62728", hatch="///", label=_NEGATIVE_NAME))
    _figure_legend(fig, handles, [h.get_label() for h in handles], 3)
    fig.suptitle(f"Where NVML's process figure goes: {workload}\n"
                 "(NVML: what nvidia-smi charges the process, MiB)", fontsize=11)
    return fig, used_axes, labelled
