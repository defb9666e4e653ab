"""Colours and legibility for every chart: the Okabe-Ito palette (told apart by readers with any
common colour blindness), a distinct (colour, marker, dash) per backend, and the check that no two
labels of a drawn figure touch."""

import itertools

from . import matplotlib_defaults  # noqa: F401  (first: matplotlib as it comes, not the folder's)
from matplotlib.text import Text

# Okabe & Ito, "Color Universal Design" (2008): eight colours distinguishable with protanopia,
# deuteranopia and tritanopia; black is kept for the requested curve.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "grey": "#999999",
}
# Yellow is too light for a thin line on white: last.
_LINE_COLORS = ("blue", "vermillion", "bluish green", "reddish purple", "orange", "sky blue", "grey", "yellow")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<")
_DASHES = ("-", "--", "-.", ":")


def line_styles(names):
    """name -> (colour, marker, dash), distinct for up to 8 x 4 names: colours first, then the
    dash changes, so no two lines look alike even in grey."""
    out = {}
    for name in names:
        if name in out:
            continue
        k = len(out)
        color = OKABE_ITO[_LINE_COLORS[k % len(_LINE_COLORS)]]
        out[name] = (color, _MARKERS[k % len(_MARKERS)], _DASHES[(k // len(_LINE_COLORS)) % len(_DASHES)])
    return out


def texts(fig):
    """Every visible, non-empty text of a figure (titles, tick labels, annotations, legends)."""
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        ax = t.axes
        if ax is not None and not ax.get_visible():
            continue
        out.append(t)
    return out


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()


def text_overlaps(fig, pad=0.5):
    """Pairs of texts of a drawn figure whose boxes (pixels) overlap by more than `pad`: the
    labels a reader could not read. Empty for a legible figure."""
    renderer = _renderer(fig)
    fig.draw(renderer)
    boxes = []
    for t in texts(fig):
        box = t.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            boxes.append((t, box))
    bad = []
    for (a, ba), (b, bb) in itertools.combinations(boxes, 2):
        if (min(ba.x1, bb.x1) - max(ba.x0, bb.x0) > pad and min(ba.y1, bb.y1) - max(ba.y0, bb.y0) > pad):
            bad.append((a.get_text(), b.get_text()))
    return bad


def outside_figure(fig, pad=1.0):
    """Texts of a drawn figure that stick out of it (cut off in the saved image)."""
    renderer = _renderer(fig)
    fig.draw(renderer)
    w, h = fig.bbox.width, fig.bbox.height
    out = []
    for t in texts(fig):
        b = t.get_window_extent(renderer)
        if b.x0 < -pad or b.y0 < -pad or b.x1 > w + pad or b.y1 > h + pad:
            out.append(t.get_text())
    return out
