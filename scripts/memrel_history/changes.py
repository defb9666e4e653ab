"""Which metric shifted at which run: Apache Otava's change points over each series of the
history, one series per metric and machine (latency is comparable only within one machine:
docs/gate.md). Reads the database with Python's sqlite3; writes nothing into it.

Exit codes: 0 (change points or not: this reports, the gate judges), 2 unusable input (no
database, not a memrel history, a newer schema, a metric it does not hold, a bad option),
4 Otava missing (scripts/install-deps installs it), or --markdown not written for the machine's
state (a full disk, a file size limit).
"""

import argparse
import json
import math
import os
import sqlite3
import stat
import sys
import urllib.parse

import memrel_help  # the help layout of every memrel subcommand (scripts/memrel_help.py)
import memrel_outputs
import memrel_outputs.last_word
import memrel_outputs.stopping
from memrel_outputs import memrel_kinds, unnamed_file
from memrel_outputs.address_space import user_limit_bytes
from memrel_outputs.replace_barrier import replace_barrier
from memrel_trace.name_characters import forbidden_name_character
from memrel_outputs.one_line import one_line  # a newline in --db or a name: still one line
from memrel_outputs.markdown_text import markdown_inline  # names in the table: text, never markup
from memrel_outputs.percent_text import percent_figure

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
    p.add_argument("--metric", action="append", default=[], type=memrel_help.utf8_text,
                   help="a metric to analyse (repeatable); default: every metric")
    p.add_argument("--match", default="", type=memrel_help.utf8_text,
                   help="only metrics whose name contains this")
    p.add_argument("--max-pvalue", type=memrel_help.finite_number, default=0.001,
                   help="Otava's significance threshold (default 0.001, Otava's own)")
    p.add_argument("--min-magnitude", type=memrel_help.finite_number, default=0.0,
                   help="smallest relative change Otava keeps (default 0: every significant one)")
    p.add_argument("--window", type=memrel_help.whole_number, default=50, help="Otava's window length (default 50)")
    p.add_argument("--min-runs", type=memrel_help.whole_number, default=4,
                   help="series with fewer runs are listed as too short (default 4)")
    p.add_argument("--markdown", help="also write the table to this file")
    p.add_argument("--json", action="store_true",
                   help="print the change points as JSON instead of the table (memrel report "
                        "--history reads them)")
    args = p.parse_args(argv)
    check_ranges(args)
    return args


# The ranges of compare's and ab's --alpha and --latency-min-change (cli/threshold_options.hpp),
# for the same reason: a p-value threshold of 5e-324 or a smallest change of 1e300 keeps no change
# point at all, the analysis switched off without a word (the twelfth adversarial pass,
# c4-hist-pvalue-denormal, c4-hist-mag-huge). To see no change points, do not ask for them.
MIN_PVALUE, MAX_PVALUE = 1e-9, 0.5
MAX_MAGNITUDE = 10.0


def _as_written(value):
    """A number as the user wrote it (a finite_number's text), or as Python shows it."""
    return getattr(value, "text", None) or value


def check_ranges(args):
    """Every threshold in its range (docs/inputs.md, "Numbers"): nan, inf or a negative number
    would switch the analysis off, and window 0 is no window at all."""
    if not math.isfinite(args.max_pvalue) or \
            memrel_help.outside(args.max_pvalue, MIN_PVALUE, MAX_PVALUE):
        raise UsageError(f"--max-pvalue: {_as_written(args.max_pvalue)}: must be a number from "
                         f"{MIN_PVALUE:g} to {MAX_PVALUE:g}")
    # math.copysign: "-0.0" is >= 0, a sign the range does not allow.
    if not math.isfinite(args.min_magnitude) or \
            memrel_help.outside(args.min_magnitude, 0, MAX_MAGNITUDE) or \
            math.copysign(1, args.min_magnitude) < 0:
        raise UsageError(f"--min-magnitude: {_as_written(args.min_magnitude)}: must be a finite "
                         f"number from 0 to {MAX_MAGNITUDE:g} (a relative change: 10 is 1000 %)")
    if not 2 <= args.window <= 1_000_000:
        raise UsageError(f"--window: {args.window}: must be a whole number from 2 to 1000000")
    if not 1 <= args.min_runs <= 1_000_000:
        raise UsageError(f"--min-runs: {args.min_runs}: must be a whole number from 1 to 1000000")


# The first bytes of SQLite's rollback journal and of its write-ahead log (sqlite.org/fileformat).
_JOURNAL_MAGIC = {"-journal": (b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7",),
                  "-wal": (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83"),
                  # The shared-memory index's header version, 3007000, in either byte order
                  # (SQLite writes it in place: the sixty-eighth adversarial pass).
                  "-shm": (b"\x18\xe2\x2d\x00", b"\x00\x2d\xe2\x18")}


def _is_sqlite_journal(path, suffix):
    """Whether the regular file PATH is empty or begins as SQLite's journal of its kind: a user's
    file there (a results file named h.sqlite-journal) was taken for a stale journal and removed
    by `history list` and `show` (the twenty-seventh adversarial pass,
    c1-history-read-commands-delete-stray-journal), as memrel's C++ side checks it too."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return True  # what cannot be read, SQLite cannot take either: its own error follows
    # A live journal's magic is written only as it is synced: until then it begins with zeros.
    if suffix == "-shm":
        head = head[:4]
    return (not head or any(m.startswith(head) or head.startswith(m)
                            for m in _JOURNAL_MAGIC[suffix])
            or (suffix in ("-journal", "-shm") and head == bytes(len(head))))


def _sqlite_file_name(path):
    """Where SQLite keeps the history's journals: beside the file a symbolic link names, as SQLite
    resolves the link (the C++ reader's sqlite_file_name; the fifty-ninth adversarial pass,
    c1-db-symlink-deletes-journal-file)."""
    return os.path.realpath(path) if os.path.islink(path) else path


def _check_wal_companions_can_be_made(path):
    """A history in WAL mode is read through PATH-wal and PATH-shm, which SQLite makes beside it:
    in a folder that takes no new file, the refusal was only SQLite's "unable to open database
    file" (the fifty-fourth adversarial pass, arguable). The twin of
    gate/history/history_db.cpp's."""
    try:
        with open(path, "rb") as f:
            header = f.read(20)
    except OSError:
        return
    # Bytes 18 and 19 of the header: the write and read versions, 2 in WAL mode.
    if len(header) != 20 or header[18] != 2 or header[19] != 2:
        return
    file = _sqlite_file_name(path)  # where SQLite makes them
    if os.path.lexists(file + "-wal") and os.path.lexists(file + "-shm"):
        return
    folder = os.path.dirname(file) or "."
    why = replace_barrier(folder)
    if why == "is append-only (chattr +a)":
        why = ""  # takes new files
    if not why and not os.access(folder, os.W_OK | os.X_OK):
        try:
            read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
        except OSError:
            read_only = False
        # In the C++ twin's words: strerror of access()'s EROFS or EACCES.
        why = f"takes no new file ({'Read-only file system' if read_only else 'Permission denied'})"
    if why:
        raise UsageError(f"{path}: a history in WAL mode, read through {path}-wal and -shm, which "
                         f"SQLite cannot make: its folder {folder} {why}; move the history to a "
                         "folder that takes new files, or take it out of WAL mode there (sqlite3 "
                         "PATH 'PRAGMA journal_mode=DELETE')")




def _not_an_sqlite_database(path):
    """Why the regular, non-empty file at path is no SQLite database ("" when it begins as one, or
    cannot be read: SQLite then says why), in the C++ reader's words (gate/history/history_db.cpp,
    not_an_sqlite_database): a 1-byte file was "an SQLite database, but not a memrel history"
    (the seventy-first adversarial pass, c10-one-byte-file-taken-as-history), a results file
    SQLite's "file is not a database" (c10-history-db-not-told-by-content)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        head = b""
        while len(head) < memrel_kinds.HEAD_BYTES:
            more = os.read(fd, memrel_kinds.HEAD_BYTES - len(head))
            if not more:
                break
            head += more
    except OSError:
        return ""
    finally:
        os.close(fd)
    if not head or memrel_kinds.is_history(head):
        return ""
    # memrel's own other kinds, in every reader's words: a pickle too, which was "not an SQLite
    # database (it does not begin ...)".
    kind = memrel_kinds.other_memrel_kind(head, "history database")
    if kind:
        return kind
    if memrel_kinds.is_json_document(head):
        return ("a JSON document (a results file?), not a history database: add a results file "
                "to a history with `memrel history --db DB add FILE`")
    return ("not an SQLite database (it does not begin with \"SQLite format 3\"), so not a "
            "history database (memrel history add makes one where no file is)")


def open_history(path):
    # What is there, named as the C++ reader names it (gate/history/history_db.cpp): a FIFO, a
    # folder or an empty file was "no history database here", or "an SQLite database, but not a
    # memrel history" (the fifty-fifth adversarial pass,
    # c10-history-python-misnames-fifo-folder-empty).
    try:
        st = os.stat(path)
    except OSError:
        raise UsageError(f"{path}: no history database here (memrel history add creates one)") \
            from None
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path}: {memrel_outputs.kind_name(st.st_mode)}, not a regular file: not "
                         "a history database")
    if st.st_size == 0:
        raise UsageError(f"{path}: an empty file, not a history database (memrel history add "
                         "makes one where no file is)")
    why = _not_an_sqlite_database(path)
    if why:
        raise UsageError(f"{path}: {why}")
    # SQLite opens the files beside the database by their names: a FIFO at PATH-journal hung
    # `history changes` and the report's history pages in open() (the tenth adversarial pass,
    # c2-history-sqlite-journal-fifo-*). Each is absent or a regular file, as the C++ side says.
    file = _sqlite_file_name(path)
    for suffix in ("-journal", "-wal", "-shm"):
        try:
            side = os.lstat(file + suffix)
        except OSError:
            continue
        mode = side.st_mode
        if not stat.S_ISREG(mode):
            raise UsageError(f"{file}{suffix}: {memrel_outputs.kind_name(mode)}, not a regular "
                             f"file: SQLite keeps the history {path}'s journal there; move it away")
        if side.st_nlink > 1:  # the C++ reader's rule, and its words
            raise UsageError(f"{file}{suffix}: has {side.st_nlink} names (hard "
                             f"links), where SQLite keeps the history {path}'s journal: SQLite "
                             "writes it in place, and every other name with it; move it away")
        if suffix == "-shm" and not _is_sqlite_journal(file + suffix, suffix):
            raise UsageError(f"{file}{suffix}: not SQLite's shared-memory index, where SQLite "
                             f"keeps the history {path}'s: SQLite would write over it; move it "
                             "away")
        if not _is_sqlite_journal(file + suffix, suffix):
            raise UsageError(f"{file}{suffix}: not an SQLite journal, where SQLite keeps the "
                             f"history {path}'s: SQLite would take it for a stale one and remove "
                             "it; move it away")
    _check_wal_companions_can_be_made(path)
    try:
        # The path escaped as a URI's: '#', '?' and '%' in a name read another history, made a
        # stray file or failed (the twenty-sixth adversarial pass, c10-history-db-*).
        # As bytes: a name that is not UTF-8 is the file system's bytes, percent-encoded whole.
        uri = urllib.parse.quote(os.fsencode(os.path.abspath(path)))
        db = sqlite3.connect(f"file:{uri}?mode=ro", uri=True)
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


# The columns read, by table and the type each must hold (gate/history/history_db.cpp's schema).
# The largest figure memrel records (results integers, benchmark times and bytes).
MOST_FIGURE = 2 ** 53

# SQLite keeps any type in any column: a blob metric name stopped the sort of the series with a
# traceback (t12, t72 of the fifth adversarial pass). NULLs read as '' are made so by the query.
_COLUMNS = (("figures", "metric", str), ("runs", "machine_id", str), ("runs", "id", int),
            ("runs", "started", str), ("runs", "source", str), ("runs", "memrel_commit", str))


def _check_types(path, row):
    """Every column of a row of series_of's query holds its type, else the one-line refusal that
    names the row and the column, as the C++ reader says a figure's value is not a number."""
    figure_row, run_id = row[0], row[3]
    for (table, column, kind), value in zip(_COLUMNS, row[1:]):
        where = f"figures row {figure_row}" if table == "figures" else f"runs row {run_id}"
        # Text memrel wrote holds no control, invisible, text-direction or noncharacter code point (names
        # are checked before they go in); other text would reach the terminal and the Markdown raw.
        if kind is str and isinstance(value, str) and forbidden_name_character(value):
            raise UsageError(f"{path}: {where}, column {column}: text holding "
                             f"{forbidden_name_character(value)}, a control, invisible, text-direction "
                             "or noncharacter code point; not a memrel history")
        if type(value) is not kind:
            shown = "a blob" if isinstance(value, bytes) else "NULL" if value is None else \
                repr(value)[:40]
            what = "text" if kind is str else "an integer"
            raise UsageError(f"{path}: {where}, column {column}: {shown} is not {what}; "
                             "not a memrel history")


def series_of(db, path, metrics, match):
    """{(metric, machine): [(run_id, started, source, commit, value)...]} in time order."""
    query = ("SELECT f.rowid, f.metric, ifnull(r.machine_id, ''), r.id, r.started, r.source, "
             "ifnull(r.memrel_commit, ''), f.value FROM figures f JOIN runs r ON r.id = f.run_id "
             "WHERE instr(f.metric, ?) > 0 ORDER BY f.metric, r.started, r.id")
    out = {}
    try:
        rows = db.execute(query, (match,)).fetchall()
    except sqlite3.DatabaseError as e:
        raise UsageError(f"{path}: not a readable memrel history ({e})") from None
    # A --match that names nothing is a typo, as a --metric not in the history is: "0 change
    # points", exit 0, said nothing was looked at (the forty-sixth adversarial pass,
    # c4-history-changes-match-nothing).
    if match and not rows:
        raise UsageError(f"--match {match!r}: no metric of the history contains it "
                         "(memrel history list)")
    for row in rows:
        _check_types(path, row)
    for _, metric, machine, run_id, started, source, commit, value in rows:
        if metrics and metric not in metrics:
            continue
        # SQLite keeps any type in any column: a figure must be a finite number.
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise UsageError(f"{path}: figures of run {run_id}: {metric}: {value!r} is not a "
                             "finite number; not a memrel history")
        # Every figure memrel records is within 2^53 (history_db.cpp, figure_value): a hand-set
        # 1.7e308 overflowed Otava's arithmetic, and the shift to it was no change point (the
        # forty-first adversarial pass, c4-history-changes-huge-figure-no-change).
        if abs(value) > MOST_FIGURE:
            raise UsageError(f"{path}: figures of run {run_id}: {metric}: {value!r} is out of "
                             "range (-2^53 to 2^53); not a memrel history")
        out.setdefault((metric, machine), []).append((run_id, started, source, commit, value))
    missing = [m for m in metrics if not any(key[0] == m for key in out)]
    if missing:
        raise UsageError(f"{missing[0]}: not in the history (memrel history list)")
    return out


class OtavaFailed(Exception):
    """Apache Otava, a library of another project, failed: the machine's install, not memrel's
    bug nor the history's. str() is the line to print (exit 4)."""


def _limit_words():
    """" under an address-space limit of N MiB (ulimit -v)", the user's, or "" without one."""
    limit = user_limit_bytes()
    return "" if limit is None else f" under an address-space limit of {limit >> 20} MiB (ulimit -v)"


def change_percent(before, after):
    """The shift as a percentage of the mean before it, or None from a mean of 0: no percentage
    of nothing. Otava's own said 0.0 % for 0 -> 4096, or inf, which --json wrote as `Infinity`,
    no JSON (the thirty-eighth adversarial pass, c4-history-change-from-zero-percent,
    c4-history-changes-json-infinity)."""
    if not (math.isfinite(before) and math.isfinite(after)) or before == 0:
        return None
    return (after - before) / abs(before) * 100


def find_changes(values, args):
    """Otava's change points of one series: [(index, mean before, mean after, change %, p)]."""
    try:
        from otava.analysis import compute_change_points

        points, _ = compute_change_points(values, window_len=args.window,
                                          max_pvalue=args.max_pvalue,
                                          min_magnitude=args.min_magnitude)
        return [(cp.index, cp.stats.mean_1, cp.stats.mean_2,
                 change_percent(cp.stats.mean_1, cp.stats.mean_2), cp.stats.pvalue)
                for cp in points]
    except MemoryError:
        raise  # said by memrel_entry.py
    except Exception as e:  # its traceback was 29 lines (the sixteenth adversarial pass)
        raise OtavaFailed(f"Apache Otava failed ({type(e).__name__}: {' '.join(str(e).split())})"
                          f"{_limit_words()}; is its install whole? run scripts/install-deps") \
            from None


def change_points(series, args):
    """Every change point as a dict, with the run before the shift too (its commit opens the
    commit range the shift happened in): what --json prints."""
    out = []
    for (metric, machine), runs in sorted(series.items()):
        if len(runs) < args.min_runs:
            continue
        for index, before, after, percent, p in find_changes([r[4] for r in runs], args):
            prev, run = runs[index - 1], runs[index]
            out.append({"metric": metric, "machine": machine, "run_id": run[0], "started": run[1],
                        "commit": run[3], "previous_run_id": prev[0], "previous_started": prev[1],
                        "previous_commit": prev[3], "before": before, "after": after,
                        "change_percent": percent, "pvalue": p})
    return out


def report(series, args):
    rows, short = [], 0
    for (metric, machine), runs in sorted(series.items()):
        if len(runs) < args.min_runs:
            short += 1
            continue
        for index, before, after, percent, p in find_changes([r[4] for r in runs], args):
            run_id, started, source, commit, _ = runs[index]
            # Names as text, never markup (memrel_outputs.markdown_text): a `|` in a metric's
            # name split its row, a `**` made it bold.
            text = (markdown_inline(x) for x in (metric, machine or "unknown", run_id, started,
                                                 commit or "?"))
            rows.append("| " + " | ".join(text) + f" | {before:.6g} -> {after:.6g} | "
                        f"{'from 0' if percent is None else percent_figure(percent) + '%'} | {p:.2g} |")
    lines = ["| metric | machine | shifted at run | started | memrel | mean before -> after "
             "| change | p |", "|---|---|---|---|---|---|---|---|", *rows, ""]
    analysed = len(series) - short
    lines.append(f"Change points: {len(rows)} in {analysed} series of at least {args.min_runs} "
                 f"runs ({short} shorter, not analysed); Apache Otava E-Divisive, "
                 f"max p {args.max_pvalue:g}.")
    return "\n".join(lines if rows else lines[3:]) + "\n"


def main(argv):
    # SIGTERM and SIGHUP unwind like Ctrl-C: a --markdown half written is removed on the way out.
    memrel_outputs.stopping.stop_on_signals()
    try:
        return _main(argv)
    except memrel_outputs.stopping.Stopped as e:
        print(f"memrel history changes: stopped by {e.name}; nothing written", file=sys.stderr)
        return 128 + e.signal_number
    except KeyboardInterrupt:
        print("memrel history changes: interrupted; nothing written", file=sys.stderr)
        return 130


def _main(argv):
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    except UsageError as e:
        print(one_line(f"memrel: {e}"), file=sys.stderr)
        return 2
    try:
        if args.markdown is not None:
            try:
                memrel_outputs.check_file(args.markdown, [args.db])
                memrel_outputs.check_writable(args.markdown)
            except memrel_outputs.OutputRuleError as e:
                raise UsageError(f"--markdown {e}") from None
        db = open_history(args.db)
        series = series_of(db, args.db, args.metric, args.match)
    except UsageError as e:
        print(one_line(f"memrel: {e}"), file=sys.stderr)
        return 2
    try:
        from otava.analysis import compute_change_points  # noqa: F401  (before any statistics)
    except MemoryError:
        raise
    except Exception as e:  # a broken install raises more than ImportError: one line
        said = " ".join(str(e).split())
        if _limit_words():
            # Under the user's limit, most likely not the install's fault: numpy's shared
            # libraries did not fit (the sixteenth adversarial pass,
            # c8-history-ulimit-v-blames-install), and numpy then says it was imported "from its
            # source directory" (the nineteenth, c8-ulimit-v-history-changes-misdiagnosed).
            print(one_line(f"memrel history changes: Apache Otava could not be loaded"
                           f"{_limit_words()} ({type(e).__name__}: {said[:120]}): most likely out "
                           "of memory; raise the limit (scripts/install-deps if it fails without "
                           "one)"), file=sys.stderr)
            return 4
        print(one_line(f"memrel history changes: Apache Otava is not importable with "
                       f"{sys.executable} ({type(e).__name__}: {said}): run scripts/install-deps"),
              file=sys.stderr)
        return 4
    try:
        if args.json:
            points = change_points(series, args)
        else:
            text = report(series, args)
    except OtavaFailed as e:
        print(one_line(f"memrel history changes: {e}"), file=sys.stderr)
        return 4
    if args.json:
        json.dump(points, sys.stdout, allow_nan=False)  # JSON, never Infinity or NaN
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(text)
    if args.markdown:
        try:
            write_atomically(args.markdown, text)
        except memrel_outputs.OutputRuleError as e:
            print(one_line(f"memrel: --markdown {e}"), file=sys.stderr)
            return 2
        except OSError as e:
            print(one_line(f"memrel: --markdown {args.markdown}: cannot write ({e.strerror or e})"),
                  file=sys.stderr)
            # A full disk or a file size limit is the machine's state (exit 4, f22's kind), not
            # a bad --markdown.
            return 4 if e.errno in memrel_outputs.MACHINE_STATE_ERRNOS else 2
    return 0


def write_atomically(path, text):
    """A fresh temporary file beside path (never through a link), synced, renamed over path; its
    missing folders made first, gone again if the write fails."""
    memrel_outputs.check_file(path)
    with memrel_outputs.FoldersMade(os.path.dirname(path)):
        _write_beside(path, text)


def _write_beside(path, text):
    # Into a file without a name, checked again and named only once whole: a SIGKILL while
    # writing left PATH.tmp.PID for good (the forty-second adversarial pass,
    # c9-writers-sigkill-tmp-left).
    unnamed_file.replace_whole(path, text.encode("utf-8"),
                               check=lambda: memrel_outputs.check_file(path))