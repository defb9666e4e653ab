"""Which metric shifted at which run: Apache Otava's change points over each series of the
history, one series per metric and machine (latency is comparable only within one machine:
docs/gate.md). Reads the database with Python's sqlite3; writes nothing into it.

Exit codes: 0 (change points or not: this reports, the gate judges), 2 unusable input (no
database, not a memrel history, a newer schema, a metric it does not hold, a bad option),
4 Otava missing (scripts/install-deps installs it).
"""

import argparse
import os
import sqlite3
import sys

import memrel_help  # the help layout of every memrel subcommand (scripts/memrel_help.py)

SCHEMA_VERSION = 1          # gate/history/history_db.hpp kHistorySchemaVersion
APPLICATION_ID = 0x6D656D72  # "memr"


class UsageError(Exception):
    pass


def parse_args(argv):
    p = memrel_help.ArgumentParser(
        prog="memrel history changes",
        description="Change points per metric and machine over the results history "
                    "(Apache Otava's E-Divisive: docs/history.md).")
    p.add_argument("--db", required=True, help="the history database (SQLite)")
    p.add_argument("--metric", action="append", default=[],
                   help="a metric to analyse (repeatable); default: every metric")
    p.add_argument("--match", default="", help="only metrics whose name contains this")
    p.add_argument("--max-pvalue", type=float, default=0.001,
                   help="Otava's significance threshold (default 0.001, Otava's own)")
    p.add_argument("--min-magnitude", type=float, default=0.0,
                   help="smallest relative change Otava keeps (default 0: every significant one)")
    p.add_argument("--window", type=int, default=50, help="Otava's window length (default 50)")
    p.add_argument("--min-runs", type=int, default=4,
                   help="series with fewer runs are listed as too short (default 4)")
    p.add_argument("--markdown", help="also write the table to this file")
    return p.parse_args(argv)


def open_history(path):
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no history database here (memrel history add creates one)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        application = db.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError as e:
        raise UsageError(f"{path}: {e}") from None
    if application != APPLICATION_ID:
        raise UsageError(f"{path}: an SQLite database, but not a memrel history")
    if version > SCHEMA_VERSION:
        raise UsageError(f"{path}: history schema {version}, written by a newer memrel "
                         f"(this one reads up to {SCHEMA_VERSION})")
    return db


def series_of(db, path, metrics, match):
    """{(metric, machine): [(run_id, started, source, commit, value)...]} in time order."""
    query = ("SELECT f.metric, ifnull(r.machine_id, ''), r.id, r.started, r.source, "
             "ifnull(r.memrel_commit, ''), f.value FROM figures f JOIN runs r ON r.id = f.run_id "
             "WHERE instr(f.metric, ?) > 0 ORDER BY f.metric, r.started, r.id")
    out = {}
    try:
        rows = db.execute(query, (match,)).fetchall()
    except sqlite3.DatabaseError as e:
        raise UsageError(f"{path}: not a readable memrel history ({e})") from None
    for metric, machine, run_id, started, source, commit, value in rows:
        if metrics and metric not in metrics:
            continue
        out.setdefault((metric, machine), []).append((run_id, started, source, commit, value))
    missing = [m for m in metrics if not any(key[0] == m for key in out)]
    if missing:
        raise UsageError(f"{missing[0]}: not in the history (memrel history list)")
    return out


def find_changes(values, args):
    """Otava's change points of one series: [(index, mean before, mean after, change %, p)]."""
    from otava.analysis import compute_change_points

    points, _ = compute_change_points(values, window_len=args.window,
                                      max_pvalue=args.max_pvalue,
                                      min_magnitude=args.min_magnitude)
    return [(cp.index, cp.stats.mean_1, cp.stats.mean_2, cp.stats.forward_change_percent(),
             cp.stats.pvalue) for cp in points]


def report(series, args):
    rows, short = [], 0
    for (metric, machine), runs in sorted(series.items()):
        if len(runs) < args.min_runs:
            short += 1
            continue
        for index, before, after, percent, p in find_changes([r[4] for r in runs], args):
            run_id, started, source, commit, _ = runs[index]
            rows.append(f"| {metric} | {machine or 'unknown'} | {run_id} | {started} | "
                        f"{commit or '?'} | {before:.6g} -> {after:.6g} | {percent:+.1f}% | "
                        f"{p:.2g} |")
    lines = ["| metric | machine | shifted at run | started | memrel | mean before -> after "
             "| change | p |", "|---|---|---|---|---|---|---|---|", *rows, ""]
    analysed = len(series) - short
    lines.append(f"Change points: {len(rows)} in {analysed} series of at least {args.min_runs} "
                 f"runs ({short} shorter, not analysed); Apache Otava E-Divisive, "
                 f"max p {args.max_pvalue:g}.")
    return "\n".join(lines if rows else lines[3:]) + "\n"


def main(argv):
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        db = open_history(args.db)
        series = series_of(db, args.db, args.metric, args.match)
    except UsageError as e:
        print(f"memrel: {e}", file=sys.stderr)
        return 2
    try:
        import otava.analysis  # noqa: F401  (checked before any statistics)
    except ImportError as e:
        print(f"memrel history changes: Apache Otava is not importable with {sys.executable} "
              f"({e}): run scripts/install-deps", file=sys.stderr)
        return 4
    text = report(series, args)
    sys.stdout.write(text)
    if args.markdown:
        tmp = args.markdown + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.markdown)
    return 0
