"""An RMM `logging_resource_adaptor` CSV log into the builder.

    Thread,Time,Action,Pointer,Size,Stream
    2342727,15:47:02.841961,allocate,0x10012400000,1048576,0x0

Action is `allocate`, `free` or `allocate failure` (Pointer then null: `(nil)` or `0x0`). Time is
the time of day with microseconds, so it wraps at midnight; Pointer and Stream are hexadecimal.

The replay rules (docs/traces.md) as they apply here: every `allocate` is a request, its `free`
frees it; a `free` of a pointer with no recorded `allocate` was allocated before logging began,
so it is allocated at the start; an `allocate failure` is a mark. The log is one file per device
(RMM names them FILE.devN), so `--device` has nothing to choose.
"""

import codecs
import csv
import io
import re

from . import MAX_REQUEST_BYTES
from .errors import TraceInputError
from .source_file import open_source

HEADER = "Thread,Time,Action,Pointer,Size,Stream"
ACTIONS = ("allocate", "free", "allocate failure")
DAY_US = 24 * 3600 * 1_000_000
# Time does not only go forward in a real RMM log, and such a log is accepted (docs/inputs.md,
# "The importer's inputs"): the row's time is taken when the logger builds the message (spdlog's
# log_msg, before the file sink's mutex), so a thread that waits for the mutex writes a row older
# than the one before it; and it is the local wall clock (spdlog's %H:%M:%S), which passes
# midnight, falls back an hour at the end of summer time and is stepped by NTP. The rows' order
# is the order of the calls, as RMM's own replay benchmark reads it (by line, never by time).
MAX_SPAN_US = 1 << 53
# Only a step back of more than half a day is the clock passing midnight.
WRAP_US = DAY_US // 2


def is_rmm_log(head):
    return head.lstrip(b"\xef\xbb\xbf").startswith(HEADER.encode())


# Numbers as RMM prints them, ASCII only: int() would also take "1_000", "+5", " 7" and other
# scripts' digits ("١٢"), and int(x, 16) a sign; a pointer has at most 16 hex digits (< 2^64).
_TIME = re.compile(r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.:]([0-9]{1,9}))?", re.ASCII)
_SIZE = re.compile(r"[0-9]{1,20}", re.ASCII)
_HEX = re.compile(r"(?:0[xX])?([0-9a-fA-F]{1,16})", re.ASCII)
# A row is about 60 bytes; a line longer than this is not a log, and is refused before it is
# read whole.
MAX_LINE_BYTES = 4096


def _time_of_day_us(text):
    """'15:47:02.841961' (or '15:47:02:841961') -> microseconds since midnight."""
    match = _TIME.fullmatch(text)
    if match is None:
        raise ValueError(text)
    h, m, s = int(match[1]), int(match[2]), int(match[3])
    fraction = match[4] or ""
    if not (0 <= h < 24 and 0 <= m < 60 and 0 <= s < 61):
        raise ValueError(text)
    return ((h * 60 + m) * 60 + s) * 1_000_000 + int((fraction + "000000")[:6])


def _hex(text):
    """A pointer or stream as RMM prints it: 0x7f.., 7f.., 0, or (nil); below 2^64, no sign, no
    space around it (str.strip() took U+2003 and U+00A0 too: the sixteenth adversarial pass)."""
    if text in ("(nil)", "nil", ""):
        return 0
    match = _HEX.fullmatch(text)
    if match is None:
        raise ValueError(text)
    return int(match[1], 16)


def _line_of_bad_byte(f):
    """The number of the first line of binary file f that is not UTF-8 text. TextIOWrapper
    decodes a block at a time, so its error came with an earlier line: a bad byte on line 500
    was said to be on line 371 (the nineteenth adversarial pass, c7-csv-nonutf8-wrong-line).
    Decoded again in blocks, the lines counted as _lines reads them: a line ends in \n, \r or
    \r\n (a log of \r endings was said to be bad on line 1: the fifty-sixth adversarial pass,
    c7-rmm-cr-lines-nonutf8-wrong-line)."""
    f.seek(0)
    decoder = codecs.getincrementaldecoder("utf-8")()
    number, ended_in_cr = 1, False

    def breaks(data):
        return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")

    while True:
        block = f.read(1 << 16)
        try:
            decoder.decode(block, final=not block)
        except UnicodeDecodeError as e:
            # e.object is the bytes held back from the last block (part of one character: no
            # line end among them) and this block.
            before = e.object[:e.start]
            return number + breaks(before) - (ended_in_cr and before.startswith(b"\n"))
        if not block:
            return number
        number += breaks(block) - (ended_in_cr and block.startswith(b"\n"))
        ended_in_cr = block.endswith(b"\r")


def _lines(path, f):
    """The file's lines, one at a time, none longer than MAX_LINE_BYTES: checked as it streams,
    so a file of one endless line is refused after 4 KiB, not read whole."""
    text = io.TextIOWrapper(f, encoding="utf-8-sig", newline="")
    number = 0
    while True:
        try:
            line = text.readline(MAX_LINE_BYTES + 1)
        except UnicodeDecodeError as e:
            # The wrapper decodes ahead in blocks: the line it reads is not the bad byte's.
            raise TraceInputError(path, f"line {_line_of_bad_byte(f)}",
                                  f"not UTF-8 text ({e.reason})") from None
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise TraceInputError(path, f"line {number}", f"longer than {MAX_LINE_BYTES} "
                                                          "characters: not an RMM log row")
        # A carriage return alone ends a line here (newline=""), and no line for `wc -l`, `grep
        # -n` or an editor: a fault on the row after it was named a line too far (the
        # seventy-first adversarial pass, c7-csv-bare-cr-line-number). RMM ends its lines with a
        # line feed; CR LF is taken as one.
        if line.endswith("\r"):
            raise TraceInputError(path, f"line {number}", "a carriage return without a line feed "
                                                          "ends it: RMM's log ends its lines with "
                                                          "a line feed (or CR LF)")
        yield line


def read(path, device, builder):
    """Fills `builder` from the log at `path`; returns (the blocks live at the end, None: a log
    has no reserved bytes, facts for the header). Read as it streams (the csv module, a line at
    a time): the first bad row stops it."""
    f, _ = open_source(path)
    with f:
        return _read_rows(path, csv.reader(_lines(path, f)), builder)


def _read_rows(path, rows, builder):
    def fail(number, what):
        raise TraceInputError(path, f"line {number}", what)

    try:
        header = next(rows, None)
    except csv.Error as e:
        fail(1, f"not an RMM log ({e})")
    # ASCII blanks around it only, as every field takes: str.strip() passed a header ending in
    # U+2003 (the fifty-eighth adversarial pass, c7-rmm-header-unicode-blank).
    if header is None or ",".join(header).strip(" \t\r\n") != HEADER:
        fail(1, f"not an RMM log: the header must be {HEADER}")
    b = builder
    live = {}  # pointer -> (block, size, line)
    # pointer -> the line that freed it, until it is allocated again: a second free of it is a
    # double free, refused, not a block "allocated before logging began" (that invented a block
    # the program never held: the thirty-second adversarial pass, c7-rmm-double-free-invents-block)
    freed = {}
    streams, threads = set(), set()
    first = previous = None
    day = 0
    entries = 0
    number = 1
    while True:
        # A row is named by its first line: one whose quoted field holds a line end spans
        # several, and rows.line_num is its last (the fifty-sixth adversarial pass,
        # c7-rmm-multiline-row-wrong-line).
        first_line = rows.line_num + 1
        try:
            fields = next(rows, None)
        except csv.Error as e:
            fail(first_line, f"not a CSV row ({e})")
        if fields is None:
            break
        number = first_line
        # A blank line is ASCII blanks, as every field's blanks are: a row of U+2003 alone was
        # passed over as one (the fifty-fourth adversarial pass, c7-rmm-unicode-blank-row-skipped).
        if not fields or (len(fields) == 1 and not fields[0].strip(" \t\r\n")):
            continue
        entries += 1
        if len(fields) != 6:
            fail(number, f"expected 6 fields ({HEADER}), got {len(fields)}")
        thread, time_text, action, pointer_text, size_text, stream_text = fields
        try:
            now = _time_of_day_us(time_text)
        except ValueError:
            fail(number, f'Time "{time_text[:40]}" is not HH:MM:SS.microseconds')
        if previous is not None and now < previous - WRAP_US:
            day += 1
        previous = now
        now += day * DAY_US
        first = now if first is None else first
        # Within the range of a trace's figures (2^53 us, 285 years): 120,000 midnights made a
        # span past it, which results then carried (the twenty-eighth adversarial pass,
        # c7-rmm-midnight-time-past-2-53).
        if now - first > MAX_SPAN_US:
            fail(number, f"the Time column has passed midnight {day} times since the first row: "
                         "more than 2^53 microseconds; not one program's log")
        try:
            pointer, stream = _hex(pointer_text), _hex(stream_text)
        except ValueError:
            fail(number, f'Pointer "{pointer_text[:40]}" or Stream "{stream_text[:40]}" is not '
                         "hexadecimal of at most 16 digits (ASCII, no sign)")
        if _SIZE.fullmatch(size_text) is None:  # " 1024" and "1024\u00a0" too (c7-csv-size-ws-*)
            # Said as the rule is: 0004096 of more than 20 digits is a whole number (the
            # forty-seventh adversarial pass, c7-rmm-leading-zeros-wording).
            fail(number, f'Size "{size_text[:40]}" is not a whole number of at most 20 ASCII digits')
        size = int(size_text)
        if not 0 < size <= MAX_REQUEST_BYTES:
            fail(number, f"Size {size} is out of range (1 to {MAX_REQUEST_BYTES})")
        # ASCII blanks only, as for every other field: str.strip() took U+2003 and U+00A0 around
        # an Action (arguable in the thirty-third adversarial pass, c7-rmm-action-unicode-space).
        action = action.strip(" \t")
        streams.add(stream)
        threads.add(thread.strip(" \t"))
        if action == "allocate":
            if pointer == 0:
                fail(number, "allocate of a null pointer")
            if pointer + size > 1 << 64:  # as a snapshot's (torch_snapshot.check_request)
                fail(number, f"a block of {size} bytes at {pointer:#x} ends past 2^64")
            if pointer in live:
                fail(number, f"allocate of {pointer:#x}, which is live (allocated at line {live[pointer][2]})")
            live[pointer] = (b.alloc(size), size, number)
            freed.pop(pointer, None)
        elif action == "free":
            # No allocation returns null: a free of it was a block "allocated before logging
            # began", held from the start (the thirty-third adversarial pass,
            # c7-rmm-free-of-null-invents-block).
            if pointer == 0:
                fail(number, "free of a null pointer")
            if pointer in live:
                block, allocated, at = live.pop(pointer)
                if allocated != size:
                    fail(number, f"free of {pointer:#x} with Size {size}, allocated with Size "
                                 f"{allocated} at line {at}")
            elif pointer in freed:
                fail(number, f"free of {pointer:#x}, freed already at line {freed[pointer]} and not "
                             "allocated since: a double free")
            else:  # logging began after it was allocated
                block = b.alloc_at_start(size)
            freed[pointer] = number
            b.free(block)
        elif action == "allocate failure":
            # RMM's logging adaptor writes a failure with nullptr: a pointer there is no log of
            # RMM's, and was taken as a mark without a word (the seventy-sixth adversarial pass,
            # c7-rmm-allocate-failure-nonnull-pointer).
            if pointer != 0:
                fail(number, f"allocate failure with Pointer {pointer:#x}: a failed allocation "
                             "returns none, and RMM writes (nil) or 0x0 there")
            # Since the first row, and never before it: another thread's row can be older.
            b.mark("allocate-failure", number, time_us=max(0, now - first), bytes=size)
        else:
            fail(number, f'unknown action "{action}" (known: {", ".join(ACTIONS)})')
    return [block for block, _, _ in live.values()], None, {
        "source_format": "rmm-log",
        "devices_in_source": 1,
        "source_entries": entries,
        "streams": sorted(streams),
        "threads": len(threads),
        # By the rows' clocks, first to last; 0 where the clock went back further than it went on.
        "time_span_us": None if first is None else max(0, now - first),
    }
