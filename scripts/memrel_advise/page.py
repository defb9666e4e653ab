"""`memrel advise`'s page: the frontier of a sweep (memrel.advise/1, docs/advise.md) as a chart
and a table, written as advise.html with the chart's PNG and SVG beside it.

    python3 -m memrel_advise ADVISE.json --out DIR

Exit codes as the report's: 0 written, 2 unusable input (one line naming the file), 4 internal.
"""

import argparse
import contextlib
import json
import os
import sys

import memrel_report.matplotlib_defaults  # noqa: F401  (first: matplotlib as it comes, not the folder's)
from matplotlib.figure import Figure

import memrel_outputs
import memrel_outputs.stopping
from memrel_outputs import unnamed_file

from memrel_report import document, plots
from memrel_report.units import mib

SCHEMA = "memrel.advise/1"


def _load(path):
    try:
        with open(path, encoding="utf-8") as f:
            advice = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"memrel advise page: {path}: {e}") from None
    if not isinstance(advice, dict) or advice.get("schema") != SCHEMA:
        raise SystemExit(f"memrel advise page: {path}: schema: expected \"{SCHEMA}\"")
    return advice


def frontier_plot(advice, out_dir):
    """Peak reserved against allocator time per event: every configuration that ran, the frontier
    joined, the baseline and the recommendation named."""
    ok = [p for p in advice["points"] if p["status"] == "ok"]
    with plots.matplotlib.rc_context(plots._RC):
        fig = Figure(figsize=(8, 5), layout="constrained")
        ax = fig.add_subplot()
        off = [p for p in ok if not p["on_frontier"]]
        on = sorted((p for p in ok if p["on_frontier"]), key=lambda p: p["allocator_ns_per_event"])
        ax.scatter([p["allocator_ns_per_event"] for p in off],
                   [mib(p["peak_reserved_bytes"]) for p in off],
                   color="#999999", label="dominated", zorder=2)
        ax.plot([p["allocator_ns_per_event"] for p in on],
                [mib(p["peak_reserved_bytes"]) for p in on],
                marker="o", linestyle="none", color="#0072B2",
                label="Pareto frontier (over all four figures)", zorder=3)
        for name, colour, label in ((advice.get("baseline"), "#000000", "baseline"),
                                    ((advice.get("recommendation") or {}).get("backend"),
                                     "#D55E00", "recommended")):
            point = next((p for p in ok if p["backend"] == name), None)
            if point is None:
                continue
            ax.scatter([point["allocator_ns_per_event"]], [mib(point["peak_reserved_bytes"])],
                       s=140, facecolors="none", edgecolors=colour, linewidths=2,
                       label=f"{label}: {name}", zorder=4)
        ax.set_xlabel("allocator time per event (ns)")
        ax.set_ylabel("peak reserved (MiB)")
        ax.set_title(f"Configurations of {advice['trace_name']}")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best")
        return plots._save(fig, out_dir, "advise-frontier", "The frontier: peak reserved against "
                           "allocator time per event")


def _row(p, advice):
    role = []
    if p["backend"] == advice.get("baseline"):
        role.append("baseline")
    if p["backend"] == (advice.get("recommendation") or {}).get("backend"):
        role.append("recommended")
    if p["status"] != "ok":
        return [p["backend"], p["status"], "", "", "", "", p.get("reason", "")]
    return [p["backend"], "frontier" if p["on_frontier"] else "dominated",
            f"{mib(p['peak_reserved_bytes']):.1f}", f"{mib(p['held_before_release_bytes']):.1f}",
            f"{mib(p['held_after_release_bytes']):.1f}", f"{p['allocator_ns_per_event']:.0f}",
            ", ".join(role)]


def page(advice, plot):
    blocks = [document.Para(f"The trace {advice['trace']} replayed on {len(advice['points'])} "
                            "configurations (docs/advise.md).")]
    rec = advice.get("recommendation")
    if rec:
        text = (f"Recommended: {rec['backend']}. Set: {rec['apply']}. Predicted peak reserved "
                f"{mib(rec['predicted_peak_reserved_bytes']):.1f} MiB")
        if "baseline_peak_reserved_bytes" in rec:
            text += (f" against {mib(rec['baseline_peak_reserved_bytes']):.1f} MiB for the "
                     f"baseline {advice['baseline']} ({advice['baseline_reason']}): saving "
                     f"{mib(rec['saving_bytes']):.1f} MiB")
        blocks.append(document.Note(text + "."))
    blocks += [document.Heading(2, "Frontier"), document.Image(plot),
               document.Heading(2, "Every configuration"),
               document.Table(["configuration", "frontier", "peak reserved (MiB)",
                               "held at end (MiB)", "after release (MiB)", "ns per event", ""],
                              [_row(p, advice) for p in advice["points"]], numeric={2, 3, 4, 5})]
    return document.to_html(f"memrel advise: {advice['trace_name']}", blocks)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="memrel_advise", description=__doc__)
    parser.add_argument("advice")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    advice = _load(args.advice)
    os.makedirs(args.out, exist_ok=True)
    # A link, FIFO or folder where a file goes is refused, and the page is a new file renamed
    # over the old one: written in place, it went through a hard link of advise's own trace
    # (the fifth adversarial pass, o59) or a symbolic link (n16) and replaced what it named.
    html = os.path.join(args.out, "advise.html")
    for name in ("advise.html", "advise-frontier.png", "advise-frontier.svg"):
        try:
            memrel_outputs.check_file(os.path.join(args.out, name))
        except memrel_outputs.OutputRuleError as e:
            raise SystemExit(f"memrel advise: {e}") from None
    for name in ("advise-frontier.png", "advise-frontier.svg"):
        try:  # savefig writes in place: a fresh file, never another name's
            os.unlink(os.path.join(args.out, name))
        except FileNotFoundError:
            pass
    # A stop (memrel passes SIGTERM, SIGINT, SIGHUP on) unwinds through here: the chart, drawn in
    # place, half-written, goes with it; memrel said "interrupted" over a half
    # advise-frontier.svg or an advise.html.tmp-PID (the thirty-second adversarial pass,
    # c9-advise-sigterm-half-svg). The page has no name until it is whole: a SIGKILL left its
    # advise.html.tmp-PID for good (the forty-second pass, c9-advise-sigkill-tmp-left).
    memrel_outputs.stopping.stop_on_signals()
    try:
        plot = frontier_plot(advice, args.out)
        unnamed_file.replace_whole(html, page(advice, plot).encode("utf-8"),
                                   check=lambda: memrel_outputs.check_file(html))
    except BaseException:
        for name in ("advise-frontier.png", "advise-frontier.svg"):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(args.out, name))
        raise
    return 0
