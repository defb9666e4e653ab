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

from . import MAX_REQUEST_BYTES
from .errors import TraceInputError

HEADER = "Thread,Time,Action,Pointer,Size,Stream"
ACTIONS = ("allocate", "free", "allocate failure")
DAY_US = 24 * 3600 * 1_000_000
# Threads log in parallel, so a row may be a few microseconds older than the one before it. Only
# a step back of more than half a day is the clock passing midnight.
WRAP_US = DAY_US // 2


def is_rmm_log(head):
    return head.lstrip(b"\xef\xbb\xbf").startswith(HEADER.encode())


def _time_of_day_us(text):
    """'15:47:02.841961' (or '15:47:02:841961') -> microseconds since midnight."""
    parts = text.split(":")
    if len(parts) == 4:
        h, m, s, fraction = parts
    elif len(parts) == 3:
        h, m, rest = parts
        s, _, fraction = rest.partition(".")
    else:
        raise ValueError(text)
    h, m, s = int(h), int(m), int(s)
    if not (0 <= h < 24 and 0 <= m < 60 and 0 <= s < 61 and (fraction == "" or fraction.isdigit())):
        raise ValueError(text)
    return ((h * 60 + m) * 60 + s) * 1_000_000 + int((fraction + "000000")[:6])


def _hex(text):
    """A pointer or stream as RMM prints it: 0x7f.., 7f.., 0, or (nil)."""
    text = text.strip()
    return 0 if text in ("(nil)", "nil", "") else int(text, 16)


def read(path, device, builder):
    """Fills `builder` from the log at `path`; returns (the blocks live at the end, None: a log
    has no reserved bytes, facts for the header)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TraceInputError(path, "", f"cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise TraceInputError(path, "", f"not UTF-8 text (byte {e.start})") from None

    def fail(number, what):
        raise TraceInputError(path, f"line {number}", what)

    if not lines or lines[0].strip() != HEADER:
        fail(1, f"not an RMM log: the header must be {HEADER}")
    b = builder
    live = {}  # pointer -> (block, size, line)
    streams, threads = set(), set()
    first = previous = None
    day = 0
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != 6:
            fail(number, f"expected 6 fields ({HEADER}), got {len(fields)}")
        thread, time_text, action, pointer_text, size_text, stream_text = fields
        try:
            now = _time_of_day_us(time_text.strip())
        except ValueError:
            fail(number, f'Time "{time_text}" is not HH:MM:SS.microseconds')
        if previous is not None and now < previous - WRAP_US:
            day += 1
        previous = now
        now += day * DAY_US
        first = now if first is None else first
        try:
            pointer, stream = _hex(pointer_text), _hex(stream_text)
        except ValueError:
            fail(number, f'Pointer "{pointer_text}" or Stream "{stream_text}" is not hexadecimal')
        try:
            size = int(size_text)
        except ValueError:
            fail(number, f'Size "{size_text}" is not an integer')
        if not 0 < size <= MAX_REQUEST_BYTES:
            fail(number, f"Size {size} is out of range (1 to {MAX_REQUEST_BYTES})")
        action = action.strip()
        streams.add(stream)
        threads.add(thread.strip())
        if action == "allocate":
            if pointer == 0:
                fail(number, "allocate of a null pointer")
            if pointer in live:
                fail(number, f"allocate of {pointer:#x}, which is live (allocated at line {live[pointer][2]})")
            live[pointer] = (b.alloc(size), size, number)
        elif action == "free":
            if pointer in live:
                block, allocated, at = live.pop(pointer)
                if allocated != size:
                    fail(number, f"free of {pointer:#x} with Size {size}, allocated with Size "
                                 f"{allocated} at line {at}")
            else:  # logging began after it was allocated
                block = b.alloc_at_start(size)
            b.free(block)
        elif action == "allocate failure":
            b.mark("allocate-failure", number, time_us=now - first, bytes=size)
        else:
            fail(number, f'unknown action "{action}" (known: {", ".join(ACTIONS)})')
    return [block for block, _, _ in live.values()], None, {
        "source_format": "rmm-log",
        "devices_in_source": 1,
        "source_entries": sum(1 for line in lines[1:] if line.strip()),
        "streams": sorted(streams),
        "threads": len(threads),
        "time_span_us": None if first is None else now - first,
    }
