"""The replay rules both sources share (docs/traces.md, "Replay rules").

A source adds requests in the order of its entries; `finish` turns them into the records and
the header of a memrel.trace/1 file:

  * requests only: an allocation is a block with an id and a size; a free names the block;
  * a block freed without a recorded allocation (the recording began after it was made) is
    allocated at the start, before every other event: the program held it when recording began;
  * a free can be put back to an earlier place (`free_at`): a PyTorch free_requested whose
    free_completed never came is the block's free;
  * the blocks still live at the end are freed at the end, in block order, so every replay ends
    empty and the release at the end measures what the allocator keeps of nothing;
  * marks (an OOM, a snapshot, an RMM allocate failure) and the recording allocator's reserved
    bytes keep their place among the events.

Places are (events so far, order), where order is the source entry's index: it says which of a
mark and a free put back at the same place came first.

A million events must import in well under two seconds: the events are one list of ints (block
for an allocation, ~block for a free) and `finish` works in whole-list operations.
"""

import bisect
import sys
from array import array
from itertools import accumulate


def _numpy():
    """numpy where it is installed, else None (the pure-Python path is used)."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


# numpy for the columns, chosen by use_numpy_for before the source is read; None: pure Python.
numpy = None
# A source this large (about 150,000 events of either kind) gains from numpy more than its
# import costs; a smaller one never imports it.
NUMPY_FROM_BYTES = 8 << 20


def use_numpy_for(source_bytes):
    """Imports numpy for a large source, first thing, while the address space is still free:
    importing it (OpenBLAS's thread buffers) needs more than a small import does, and a 4-row
    log failed under `ulimit -v 100000` where it went through under 40000 (the fifty-eighth
    adversarial pass, c8-import-optional-numpy-fails-under-ulimit-v); imported after a large
    snapshot was loaded, it failed there instead, said as no limit of the importer's."""
    global numpy
    numpy = _numpy() if source_bytes >= NUMPY_FROM_BYTES else None

from . import MAX_HEADER_BYTES, OP_ALLOC, OP_FREE

RECORD_BYTES = 16  # op u8, 3 zero bytes, block id u32, size u64; little-endian
MAX_BLOCKS = 1 << 32
MAX_MARKS = MAX_HEADER_BYTES // 25
# The largest byte figure a trace holds (harness/workload/trace_file.cpp): what a result holds
# exactly, JSON's exact integers (docs/results-schema.md). A trace past it was written, exit 0,
# and then every cell of it crashed as its result was refused (the twelfth adversarial pass,
# c7-snap-*-over-2p53, c7-snap-at-start-block-sum).
MAX_BYTES = 1 << 53
# The recorded reserved curve is kept as at most this many points: each the highest value of its
# stretch of events, so the curve's peak survives subsampling exactly.
CURVE_POINTS = 512


class TraceBuilder:
    def __init__(self):
        self.events = []        # block (alloc) or ~block (free); sources may append directly
        self.sizes = []         # block -> size
        self._at_start = []     # blocks allocated before every event, in order
        self._late = []         # (place, order, block): frees put back to an earlier place
        self._marks = []        # (place, order, {label, ...})
        # The recording allocator's segment changes, (place, order, delta bytes), as three
        # arrays of 8-byte numbers: a list of tuples took ~150 bytes each, and a 24 MB pickle of
        # one segment_alloc entry referenced 12 million times took 4.45 GiB (the thirty-second
        # adversarial pass, c7-pickle-shared-entry-expands-memory).
        self._reserved_place = array("q")
        self._reserved_order = array("q")
        self._reserved_delta = array("q")

    def alloc(self, size):
        block = len(self.sizes)
        self.sizes.append(size)
        self.events.append(block)
        return block

    def alloc_at_start(self, size):
        block = len(self.sizes)
        self.sizes.append(size)
        self._at_start.append(block)
        return block

    def free(self, block):
        self.events.append(~block)

    def free_at(self, block, place, order):
        """Frees the block at an earlier place: after `place` events, after entry `order`."""
        self._late.append((place, order, block))

    def mark(self, label, order, **detail):
        # Counted as they come, not once the header is made: a snapshot repeating one `oom`
        # entry by reference (2 bytes of pickle each) held 650 bytes of memory per mark until
        # the header's cap was checked at the end, 4 GB for a 12 MB pickle (the tenth
        # adversarial pass, c7-pk-repeated-oom-marks-memory). A mark takes 25 bytes of header at
        # least ({"event":0,"label":"x"}), so more than this many cannot fit in one.
        if len(self._marks) >= MAX_MARKS:
            raise OverflowError(f"more than {MAX_MARKS} marks (OOMs, snapshots, failed "
                                f"allocations), more than a trace header of {MAX_HEADER_BYTES >> 20} "
                                "MiB holds")
        self._marks.append((len(self.events), order, dict(label=label, **detail)))

    def reserved_change(self, delta, order):
        if not -MAX_BYTES <= delta <= MAX_BYTES:
            raise OverflowError(f"a segment of {abs(delta)} bytes, more than 2^53 (8 PiB), which a "
                                "trace counts at most")
        self._reserved_place.append(len(self.events))
        self._reserved_order.append(order)
        self._reserved_delta.append(delta)

    def finish(self, live_at_end, final_reserved=None):
        """(records as bytes, facts for the header). `live_at_end`: the blocks never freed,
        freed at the end in block order; `final_reserved`: the recording allocator's reserved
        bytes at the end (a snapshot's segments), which anchors the recorded curve."""
        sizes = self.sizes
        n = len(sizes)
        if n > MAX_BLOCKS:
            raise OverflowError(f"{n} blocks, more than 2^32")
        late = sorted(self._late)
        body = self.events
        if late:
            body, start = [], 0
            for place, _, block in late:
                body.extend(self.events[start:place])
                body.append(~block)
                start = place
            body.extend(self.events[start:])
        events = self._at_start + body + [~b for b in sorted(live_at_end)]
        late_places = [(place, order) for place, order, _ in late]
        prologue = len(self._at_start)

        def event_of(place, order):
            return prologue + place + bisect.bisect_left(late_places, (place, order))

        records, peak, peak_event = columns(events, sizes)
        # What the loader reads back: a trace past it was written, exit 0, and then refused by
        # every run (the tenth adversarial pass, c7-*-peak-over-2e64-loader-refuses).
        if peak > MAX_BYTES:
            raise OverflowError(f"{peak} bytes live at once at event {peak_event}, more than "
                                "2^53 (8 PiB), which a trace counts at most")
        marks = [dict(event=event_of(p, o), **m) for p, o, m in self._marks]
        facts = {
            "counts": {"events": len(events), "allocs": n, "frees": len(events) - n, "blocks": n,
                       "allocated_at_start": prologue, "freed_at_end": len(live_at_end),
                       "marks": len(marks)},
            "peak_requested_bytes": peak,
            "peak_requested_event": peak_event,
            "marks": marks,
            "recorded_reserved": self._curve(event_of, final_reserved, len(events)),
        }
        return records, facts

    def _curve(self, event_of, final_reserved, events):
        """The recording allocator's reserved bytes after each of its segment events, anchored
        at the end by `final_reserved` (a snapshot's segments); None without either. The points,
        (0, initial), one per segment event, (events, final), are read where the envelope needs
        them, never all made: millions of segment events made millions of tuples."""
        n = len(self._reserved_delta)
        if final_reserved is None and n == 0:
            return None
        # Exact Python integers (no 8-byte sum can overflow into a wrong value), kept as 8-byte
        # numbers: each is within n x 2^53, which passes 2^63 only past 1024 segments of 2^53
        # bytes. Then the sum is said as the cap it is far past, not as Python's "int too big to
        # convert" (the sixty-fourth adversarial pass,
        # c7-segment-sum-past-2p63-python-overflow-words).
        try:
            running = array("q", accumulate(self._reserved_delta))
        except OverflowError:
            raise OverflowError("the recorded reserved bytes pass 2^63, more than 2^53 (8 PiB), "
                                "which a trace counts at most") from None
        total = running[-1] if n else 0
        lowest = min(0, min(running)) if n else 0
        # Never below zero: a trace that begins after segments were made shows them freed,
        # so they were held when it began.
        initial = max(-lowest, (final_reserved or 0) - total)
        peak = initial + max(0, max(running) if n else 0, total)
        if peak > MAX_BYTES:
            raise OverflowError(f"the recorded reserved bytes reach {peak}, "
                                "more than 2^53 (8 PiB), which a trace counts at most")

        def point(i):  # the i-th of the n + 2 points
            if i == 0:
                return (0, initial)
            if i == n + 1:
                return (events, initial + total)
            return (event_of(self._reserved_place[i - 1], self._reserved_order[i - 1]),
                    initial + running[i - 1])

        def value(i):
            return initial if i == 0 else initial + total if i == n + 1 else initial + running[i - 1]

        return {"initial_bytes": initial, "final_bytes": initial + total, "peak_bytes": peak,
                "points": _envelope(n + 2, point, value)}


def columns(events, sizes):
    """(the records as bytes, the peak of requested bytes, the events done when it is first
    reached). numpy does it in a tenth of the time when it is there (the report's matplotlib
    brings it); the pure-Python path gives the same bytes (tests/python/test_trace_import.py)."""
    if numpy is not None and sum(sizes) < (1 << 62):  # int64 sums cannot overflow
        return _columns_numpy(numpy, events, sizes)
    return _columns_python(events, sizes)


def _columns_python(events, sizes):
    n = len(sizes)
    # Tables indexed by an event (b, or ~b = -b-1, which Python reads from the end), so that
    # each column is one C-level map over the events.
    by_size = sizes + sizes[::-1]
    by_change = sizes + [-s for s in reversed(sizes)]
    by_word = [(b << 32) | OP_ALLOC for b in range(n)] + \
              [(b << 32) | OP_FREE for b in reversed(range(n))]
    records = array("Q", bytes(RECORD_BYTES * len(events)))  # two u64 words per record
    records[0::2] = array("Q", map(by_word.__getitem__, events))
    records[1::2] = array("Q", map(by_size.__getitem__, events))
    if sys.byteorder == "big":
        records.byteswap()
    live = list(accumulate(map(by_change.__getitem__, events)))
    peak = max(live, default=0)
    return records.tobytes(), peak, live.index(peak) + 1 if peak > 0 else 0


def _columns_numpy(np, events, sizes):
    ev = np.array(events, dtype=np.int64)
    freed = ev < 0
    blocks = np.where(freed, ~ev, ev)
    size = np.array(sizes, dtype=np.int64)[blocks]
    records = np.empty((len(ev), 2), dtype="<u8")
    records[:, 0] = (blocks.astype(np.uint64) << np.uint64(32)) | \
        np.where(freed, OP_FREE, OP_ALLOC).astype(np.uint64)
    records[:, 1] = size
    live = np.cumsum(np.where(freed, -size, size))
    if len(live) == 0 or live.max() <= 0:
        return records.tobytes(), 0, 0
    return records.tobytes(), int(live.max()), int(live.argmax()) + 1


def _envelope(count, point, value):
    """At most CURVE_POINTS of the `count` points (point(i) -> (event, bytes), value(i) -> its
    bytes): the first, the last, and the highest of each stretch (the first of equals)."""
    if count <= CURVE_POINTS:
        return [list(point(i)) for i in range(count)]
    stretch = -(-(count - 2) // (CURVE_POINTS - 2))
    kept = [point(0)]
    for i in range(1, count - 1, stretch):
        kept.append(point(max(range(i, min(i + stretch, count - 1)), key=value)))
    kept.append(point(count - 1))
    return [list(p) for p in kept]
