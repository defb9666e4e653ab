"""A PyTorch memory snapshot (`torch.cuda.memory._dump_snapshot()`, torch 2.11) into the builder.

The snapshot is a dict: `segments` (what the caching allocator held when it was dumped, each
with its `blocks`), `device_traces` (one list of entries per device, oldest first, the last
`max_entries` of them), `allocator_settings`, `external_annotations`. An entry has `action`,
`addr` (`device_free` for an oom), `size`, `stream`, `time_us` and perhaps `frames`.

The replay rules (docs/traces.md) as they apply here:
  alloc           a request: a block of `size` bytes (the size asked for, before rounding)
  free_completed  the block's free (the memory became reusable for the recording allocator)
  free_requested  the block's free only when no free_completed for it follows
  segment_*       the recording allocator's own reservations: not requests; they make the
                  recorded reserved curve, kept in the trace as the reference
  oom, snapshot   marks
A free of a block with no recorded alloc, and a block live in `segments` whose address no entry
names, were allocated before recording began: allocated at the start.
"""

import math
import reprlib
from operator import add, itemgetter

from . import MAX_REQUEST_BYTES
from .errors import TraceInputError
from .safe_pickle import load_plain

REQUEST_ACTIONS = ("alloc", "free_requested", "free_completed")
SEGMENT_SIGN = {"segment_alloc": 1, "segment_map": 1, "segment_free": -1, "segment_unmap": -1}
MARK_ACTIONS = ("oom", "snapshot")
ACTIONS = REQUEST_ACTIONS + tuple(SEGMENT_SIGN) + MARK_ACTIONS
LIVE_STATES = ("active_allocated", "active_pending_free")
# Every state torch gives a segment's block: another one was a block dropped as not live, exit 0
# (arguable in the thirty-ninth adversarial pass, c7-snapshot-unknown-block-state).
BLOCK_STATES = LIVE_STATES + ("inactive",)
MAX_ADDRESS = (1 << 64) - 1
MAX_DEVICE = (1 << 31) - 1  # a CUDA device index (an int in torch)
# The other integers the importer reads (streams, times, an oom's device_free) go into the
# header's JSON: each is checked to fit a 64-bit integer before it is used or made text (i16, i17
# of the fifth adversarial pass: a 5,000-digit one stopped str() itself, exit 4).
TIME_US = (0, 1 << 53)
WORD = (-(1 << 63), MAX_ADDRESS)  # an int64 or a uint64: what torch writes, what JSON readers hold
_KEPT = []  # snapshots read, see read()


def is_snapshot(path, head):
    """A pickle: protocol 2 or later starts with the PROTO opcode; older ones go by the name."""
    return head[:1] == b"\x80" or path.endswith((".pickle", ".pkl"))


# Bounded: a value that shares itself (a list holding one list twice, n levels deep) is 2^n
# values when expanded; repr, json and hashing would expand it. Errors show at most 2 levels.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 2, 40, 40
# allocator_settings, copied into the header: a handful of values in every real snapshot.
MAX_SETTINGS_VALUES, MAX_SETTINGS_DEPTH = 10_000, 32
# And their text, counted as expanded: one 200,000-character string named by 9,999 keys (a 299 KB
# pickle) was a 2 GB header built in memory before the loader's 16 MiB cap refused it, 4 GB and
# 12 s (the eightieth adversarial pass, c7-shared-settings-string-expanded).
MAX_SETTINGS_TEXT = 1 << 20


def _show(value):
    try:
        text = _REPR.repr(value) if not isinstance(value, str) else '"' + value[:40] + '"'
    except ValueError:  # an int of more than 4300 digits
        text = f"an integer of {value.bit_length()} bits" if isinstance(value, int) else "?"
    return text if len(text) <= 40 else text[:37] + "..."


def _utf8(text):
    """text as UTF-8 can hold it: a lone surrogate (a pickle's str may hold one) as its escape,
    `\\ud800`. Kept as it was, it went into the header as JSON's `\\ud800`, which no UTF-8 reader
    takes: the trace was written, exit 0, and every reader refused it (the twelfth adversarial
    pass, c7-snap-settings-lone-surrogate, c7-snap-settings-key-surrogate)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class _SettingsError(Exception):
    pass


def _plain(value, budget=None, path=()):
    """JSON's share of a value: what JSON cannot hold (NaN, bytes, ...) as its repr. At most
    MAX_SETTINGS_VALUES values and MAX_SETTINGS_TEXT characters of text, MAX_SETTINGS_DEPTH
    deep, and no cycle (_SettingsError)."""
    budget = budget if budget is not None else [MAX_SETTINGS_VALUES, MAX_SETTINGS_TEXT]
    budget[0] -= 1
    if budget[0] < 0:
        raise _SettingsError(f"more than {MAX_SETTINGS_VALUES} values (expanded)")
    if isinstance(value, str):
        _spend_text(budget, value)
    if isinstance(value, (dict, list, tuple)):
        if id(value) in path:
            raise _SettingsError("cyclic: a value holds itself")
        if len(path) >= MAX_SETTINGS_DEPTH:
            raise _SettingsError(f"nested more than {MAX_SETTINGS_DEPTH} deep")
        inner = path + (id(value),)
        if isinstance(value, dict):
            return _plain_dict(value, budget, inner)
        return [_plain(v, budget, inner) for v in value]
    if isinstance(value, str):
        return _utf8(value)
    if value is None or isinstance(value, bool) or \
            (isinstance(value, int) and WORD[0] <= value <= WORD[1]) or \
            (isinstance(value, float) and math.isfinite(value)):
        return value
    return _show(value)


def _spend_text(budget, text):
    """Counts TEXT against the settings' text budget, before any copy of it is made."""
    budget[1] -= len(text)
    if budget[1] < 0:
        raise _SettingsError(f"more than {MAX_SETTINGS_TEXT} characters of text (expanded: a "
                             "string named more than once counts each time)")


def _plain_dict(value, budget, path):
    """A dict's keys as JSON's text keys. Two keys one text (the int 1 and the str '1', a lone
    surrogate and its written-out escape) are refused: one setting was dropped without a word (the
    seventy-sixth adversarial pass, c7-snapshot-settings-key-collision-drops-setting)."""
    out, keys = {}, {}
    for k, v in value.items():
        if isinstance(k, str):
            _spend_text(budget, k)
        text = _utf8(k) if isinstance(k, str) else _show(k)
        if text in keys:
            # ascii(): a lone surrogate and its escape look alike otherwise.
            first, second = (ascii(x)[:40] if isinstance(x, str) else _show(x)
                             for x in (keys[text], k))
            raise _SettingsError(f"the keys {first} and {second} are one key as text: one "
                                 "setting would be lost")
        keys[text] = k
        out[text] = _plain(v, budget, path)
    return out


class _Reader:
    def __init__(self, path, device, builder, size):
        self.path, self.device, self.b = path, device, builder
        # The most blocks segment_blocks walks: a block takes far more than a byte of pickle, so
        # more than one per byte means a segment or a block list shared by reference and walked at
        # every use (a 400 KB pickle of one segment listed 100,000 times, its 100,000 blocks one
        # shared dict, was 10^10 steps: the fourteenth adversarial pass, c7-snap-shared-segments).
        self.size = self.blocks_left = size
        self.trace_where = f"device_traces[{device}]"
        self._first_time = None  # see first_time

    def fail(self, where, what):
        raise TraceInputError(self.path, where, what)

    def integer(self, entry, key, where, low=0, high=MAX_REQUEST_BYTES):
        """entry[key], an integer in [low, high]; else the one-line error, which shows a value
        out of range by _show: str() of an int of more than 4300 digits raises ValueError."""
        value = entry.get(key)
        if type(value) is not int:
            self.fail(where, f"'{key}' must be an integer, got {_show(value)}")
        if not low <= value <= high:
            self.fail(where, f"'{key}' = {_show(value)} is out of range ({low} to {high})")
        return value

    def time_at(self, trace, i):
        """time_us of trace[i], checked; None where the entry has none (or i is None)."""
        if i is None or type(trace[i].get("time_us")) is not int:
            return None
        # Microseconds since the epoch, as torch writes them: from 0 to 2^53, so that no span or
        # mark time computed from two of them leaves the range of a trace's figures (2^63 - 1
        # then -2^63 made a span of -18446744073709551615: the twenty-seventh adversarial pass,
        # c7-snapshot-time-span-negative-beyond-int64).
        return self.integer(trace[i], "time_us", self.where(i), *TIME_US)

    def first_time(self, trace):
        """time_us of the first entry that has one (0 if none): marks' times count from it."""
        if self._first_time is None:
            i = next((i for i, e in enumerate(trace)
                      if isinstance(e, dict) and type(e.get("time_us")) is int), None)
            self._first_time = self.time_at(trace, i) or 0
        return self._first_time

    def read(self, snapshot):
        if not isinstance(snapshot, dict) or "device_traces" not in snapshot:
            self.fail("", "not a PyTorch memory snapshot (a dict with 'device_traces' and "
                          "'segments', from torch.cuda.memory._dump_snapshot())")
        traces = snapshot["device_traces"]
        if not isinstance(traces, list):
            self.fail("device_traces", f"must be a list (one per device), got {_show(traces)}")
        # None at all said as such: "0 device(s) (0 to -1)" was no range (the fifty-ninth
        # adversarial pass, c7-snapshot-no-devices-range-0-to-minus-1).
        if not traces:
            self.fail("device_traces", "empty: the snapshot holds no device's trace")
        if not 0 <= self.device < len(traces):
            self.fail("--device", f"{self.device}: the snapshot has traces for {len(traces)} "
                                  f"device(s) (0 to {len(traces) - 1})")
        trace = traces[self.device]
        if not isinstance(trace, list):
            self.fail(self.trace_where, f"must be a list of entries, got {_show(trace)}")
        segments = snapshot.get("segments", [])
        if not isinstance(segments, list):
            self.fail("segments", f"must be a list, got {_show(segments)}")
        named, live = self.replay(trace)
        held, start = self.segment_blocks(segments, named)
        self.live_at_end = live + start
        settings = snapshot.get("allocator_settings")
        first = self.time_at(trace, next((i for i, e in enumerate(trace)
                                          if type(e.get("time_us")) is int), None))
        last = self.time_at(trace, next((i for i in reversed(range(len(trace)))
                                         if type(trace[i].get("time_us")) is int), None))
        try:  # one C-level pass where every entry has an int stream, as torch writes them
            values = list(map(itemgetter("stream"), trace))
            if set(map(type, values)) - {int}:
                raise TypeError  # never hash what is not an int: a tuple's hash expands it
        except (KeyError, TypeError):
            values = [e.get("stream") for e in trace
                      if isinstance(e, dict) and type(e.get("stream")) is int]
        # In range before they are hashed: ints k * (2^61 - 1) all hash alike, and a set of
        # 60,000 of them took 32 s (the seventeenth adversarial pass,
        # c7-snapshot-stream-hash-collide-quadratic); within 64 bits at most 12 share a hash.
        if values and (min(values) < WORD[0] or max(values) > WORD[1]):
            i = next(i for i, e in enumerate(trace) if isinstance(e, dict) and
                     type(e.get("stream")) is int and not WORD[0] <= e["stream"] <= WORD[1])
            self.integer(trace[i], "stream", self.where(i), *WORD)
        streams = set(values)
        return held, {
            "source_format": "torch-snapshot",
            "devices_in_source": len(traces),
            "source_entries": len(trace),
            "streams": sorted(s for s in streams if type(s) is int),
            # Never negative, as an RMM log's (times that go back are the recorder's clock).
            "time_span_us": None if first is None else max(0, last - first),
            "allocator_settings": self.settings(settings),
        }

    def settings(self, settings):
        if not isinstance(settings, dict):
            return None
        try:
            return _plain(settings)
        except _SettingsError as e:
            self.fail("allocator_settings", str(e))

    def replay(self, trace):
        """Every entry in order. Returns the addresses the request entries name and the blocks
        still live at the end.

        The loop runs once per entry of a trace of millions, so it does only what the rules
        need; sizes and addresses are checked afterwards in whole-list passes, and anything
        wrong is located by `entry_error`, which says what is wrong with which entry."""
        b = self.b
        sizes, events = b.sizes, b.events
        add_size, add_event, free_at = sizes.append, events.append, b.free_at
        addrs = []     # block -> its address (every request entry names a block's address)
        add_addr = addrs.append
        live = {}      # addr -> block: allocated, no free yet
        pending = {}   # addr -> (block, place, entry index): free_requested, not yet completed
        pop_live, pop_pending = live.pop, pending.pop
        # addr -> the entry that completed its free, until it is allocated again: another free
        # of it is a double free, refused, not a block allocated before the trace began (that
        # invented a block the program never held: the thirty-second adversarial pass,
        # c7-rmm-double-free-invents-block).
        freed = {}
        pop_freed = freed.pop

        def at_start(addr, size):  # freed, never allocated in the trace: held when it began
            add_addr(addr)
            return b.alloc_at_start(size)

        for i, entry in enumerate(trace):
            try:
                action = entry["action"]
                if action == "alloc":
                    addr = entry["addr"]
                    # Hashed next: never a tuple (its hash expands it), never an int out of
                    # range (ints k * (2^61 - 1) all hash alike: 40,000 such addresses took 20 s,
                    # the seventeenth adversarial pass, c7-snapshot-addr-hash-collide-quadratic).
                    if type(addr) is not int or not 0 <= addr <= MAX_ADDRESS:
                        raise TypeError
                    if addr in live:
                        self.entry_error(trace, i)
                    if addr in pending:  # its free_requested was never completed: freed there
                        free_at(*pop_pending(addr))
                    block = len(sizes)
                    live[addr] = block
                    pop_freed(addr, None)
                    add_event(block)
                    add_size(entry["size"])
                    add_addr(addr)
                elif action == "free_completed":  # the free
                    addr = entry["addr"]
                    if type(addr) is not int or not 0 <= addr <= MAX_ADDRESS:
                        raise TypeError
                    # An integer before it is compared with the alloc's: two lists that hold
                    # themselves compared for ever, RecursionError, exit 4 (the fifty-sixth
                    # adversarial pass, c7-snapshot-deep-size-recursion).
                    if type(entry["size"]) is not int:
                        raise TypeError
                    requested = pop_pending(addr, None)
                    if requested is not None:
                        block = requested[0]
                        if entry["size"] != sizes[block]:
                            self.free_of_another_size(trace, i, sizes[block])
                    elif addr in live:  # completed without a recorded request
                        block = pop_live(addr)
                        if entry["size"] != sizes[block]:
                            self.free_of_another_size(trace, i, sizes[block])
                    elif addr in freed:
                        self.double_free(addr, i, freed[addr])
                    else:
                        block = at_start(addr, entry["size"])
                    freed[addr] = i
                    add_event(~block)
                elif action == "free_requested":  # the free, unless a completion follows
                    addr = entry["addr"]
                    if type(addr) is not int or not 0 <= addr <= MAX_ADDRESS:
                        raise TypeError
                    if type(entry["size"]) is not int:  # as free_completed's
                        raise TypeError
                    if addr in pending:
                        self.entry_error(trace, i)
                    if addr in live:
                        block = pop_live(addr)
                        if entry["size"] != sizes[block]:
                            self.free_of_another_size(trace, i, sizes[block])
                    elif addr in freed:
                        self.double_free(addr, i, freed[addr])
                    else:
                        block = at_start(addr, entry["size"])
                    pending[addr] = (block, len(events), i)
                else:
                    self.other(trace, i)
            except (TypeError, KeyError):  # not a dict, a key missing, an unhashable value
                self.entry_error(trace, i)
        for freed in pending.values():
            free_at(*freed)
        # Whole-list checks (C loops): every size and address an integer in range.
        for values, low, high in ((sizes, 1, MAX_REQUEST_BYTES), (addrs, 0, MAX_ADDRESS)):
            if values and (set(map(type, values)) != {int} or min(values) < low or max(values) > high):
                self.first_bad_entry(trace)
        if len(addrs) == len(sizes) and sizes and max(map(add, addrs, sizes)) > MAX_ADDRESS + 1:
            self.first_bad_entry(trace)
        return addrs, list(live.values())

    def other(self, trace, i):
        """Entries that are not requests: the recording allocator's segments and the marks."""
        entry, b = trace[i], self.b
        action = entry["action"]
        if type(action) is str and action in SEGMENT_SIGN:
            b.reserved_change(SEGMENT_SIGN[action] * self.integer(entry, "size", self.where(i)), i)
        elif action == "oom" or action == "snapshot":
            t = self.time_at(trace, i)
            detail = {"time_us": max(0, t - self.first_time(trace)) if t is not None else None}
            if action == "oom":
                detail["bytes"] = self.integer(entry, "size", self.where(i))
                if type(entry.get("device_free")) is int:
                    detail["device_free"] = self.integer(entry, "device_free", self.where(i),
                                                         0, MAX_ADDRESS)
            b.mark(action, i, **detail)
        else:
            self.entry_error(trace, i)

    def where(self, i):
        return f"{self.trace_where}[{i}]"

    def check_request(self, entry, where):
        if not isinstance(entry, dict):
            self.fail(where, f"an entry must be a dict, got {_show(entry)}")
        action = entry.get("action")
        if action not in ACTIONS:
            self.fail(where, f"unknown action {_show(action)} (known: {', '.join(ACTIONS)})")
        if action in REQUEST_ACTIONS:
            addr = self.integer(entry, "addr", where, high=MAX_ADDRESS)
            size = self.integer(entry, "size", where, low=1)
            # A block ends within the address space (the forty-sixth adversarial pass,
            # c7-snapshot-block-past-2-64: 4096 bytes at 0xffffffffffffff00 were imported).
            if addr + size > MAX_ADDRESS + 1:
                self.fail(where, f"a block of {size} bytes at {addr:#x} ends past 2^64")

    def first_bad_entry(self, trace):
        for i, entry in enumerate(trace):
            self.check_request(entry, self.where(i))
        self.fail(self.trace_where, "a size or an address is not an integer in range")

    def double_free(self, addr, i, freed_at):
        self.fail(self.where(i), f"frees {addr:#x}, freed already at {self.where(freed_at)} and not "
                                 "allocated since: a double free")

    def free_of_another_size(self, trace, i, allocated):
        """A free whose size is not its block's: 'abc', -4 or 2**80 were taken, exit 0, where the
        same entry of a block held at the start was refused, and an RMM log's free of another
        size is (the thirty-ninth adversarial pass, c7-snapshot-free-size-unchecked)."""
        if type(allocated) is not int or not 1 <= allocated <= MAX_REQUEST_BYTES:
            self.first_bad_entry(trace)  # the alloc's size is the one at fault, said at its entry
        entry, where = trace[i], self.where(i)
        self.check_request(entry, where)  # a size that is no size, said as such
        self.fail(where, f"frees {entry['addr']:#x} with size {entry['size']}, allocated with "
                         f"size {_show(allocated)}")

    def entry_error(self, trace, i):
        """Says what is wrong with trace[i], which the fast path refused."""
        entry, where = trace[i], self.where(i)
        self.check_request(entry, where)
        addr, action = entry["addr"], entry["action"]
        if action == "alloc":  # at a live address: the alloc that made it live is named
            first = max((j for j in range(i) if trace[j].get("addr") == addr and
                         trace[j].get("action") == "alloc"), default=None)
            self.fail(where, f"alloc at {addr:#x}, which is live (allocated at {self.where(first)})")
        if action == "free_requested":
            first = max((j for j in range(i) if trace[j].get("addr") == addr and
                         trace[j].get("action") == "free_requested"), default=None)
            self.fail(where, f"free_requested of {addr:#x} twice (first at {self.where(first)})")
        self.fail(where, f"cannot replay this entry: {_show(entry)}")

    def segment_blocks(self, segments, addresses):
        """Blocks live in `segments` that no entry names: allocated at the start (freed at the
        end). Returns the segments' reserved bytes on this device, and those blocks."""
        held, start, named = 0, [], None
        # Each segment and each block as (first byte, end, where): one device's memory holds
        # none twice. A live block listed twice was imported as two blocks held at the start, the
        # peak doubled, exit 0 (the thirty-eighth adversarial pass,
        # c7-snapshot-segments-duplicate-block).
        spans = {"segment": [], "block": []}
        for s, segment in enumerate(segments):
            where = f"segments[{s}]"
            if not isinstance(segment, dict):
                self.fail(where, f"a segment must be a dict, got {_show(segment)}")
            # A device that is not a device index is refused, not taken for another device's
            # (a string "0" or NaN dropped the segment's live blocks from device 0's replay, exit
            # 0: the twenty-eighth adversarial pass, c7-snapshot-segment-device-odd).
            device = self.integer(segment, "device", where, high=MAX_DEVICE) \
                if "device" in segment else self.device
            if device != self.device:
                continue
            total = self.integer(segment, "total_size", where)
            held += total
            address = self.integer(segment, "address", where, high=MAX_ADDRESS)
            first, end = address, address + total
            # A segment ends within the address space, as a request's block does: a segment at
            # 2^64-4096 held a live block past 2^64, imported, exit 0 (the fifty-seventh
            # adversarial pass, c7-snapshot-segment-block-past-2-64). Its blocks lie inside it.
            if end > MAX_ADDRESS + 1:
                self.fail(where, f"a segment of {total} bytes at {address:#x} ends past 2^64")
            spans["segment"].append((first, end, where))
            blocks = segment.get("blocks", [])
            if not isinstance(blocks, list):
                self.fail(where, f"'blocks' must be a list, got {_show(blocks)}")
            self.blocks_left -= len(blocks)
            if self.blocks_left < 0:
                self.fail(where, f"refused: the segments list more blocks than the file has bytes "
                                 f"({self.size}); a segment or a block list shared by reference "
                                 "is walked at every use: malformed or hostile")
            for k, block in enumerate(blocks):
                bwhere = f"{where}.blocks[{k}]"
                if not isinstance(block, dict):
                    self.fail(bwhere, f"a block must be a dict, got {_show(block)}")
                size = self.integer(block, "size", bwhere)
                # Blocks follow each other from the segment's address (torch writes it too).
                addr = self.integer(block, "address", bwhere, high=MAX_ADDRESS) \
                    if "address" in block else address
                address = addr + size
                if size and not first <= addr < addr + size <= end:
                    self.fail(bwhere, f"bytes {addr}..{addr + size} lie outside its segment's "
                                      f"{first}..{end}")
                if size:
                    spans["block"].append((addr, addr + size, bwhere))
                if block.get("state") not in BLOCK_STATES:
                    self.fail(bwhere, f"state {_show(block.get('state'))} is none of "
                                      f"{', '.join(BLOCK_STATES)}")
                if block.get("state") not in LIVE_STATES or size == 0:
                    continue
                if named is None:  # built once, and only when a block is live
                    named = set(addresses)
                if addr not in named:
                    # The bytes asked for, at most the block's; absent (older torch): the block's.
                    # One that is no such number was replayed as the block's size, exit 0 (the
                    # twenty-eighth adversarial pass, c7-snapshot-requested-size-odd).
                    requested = size
                    if block.get("requested_size") is not None:
                        requested = self.integer(block, "requested_size", bwhere, low=1, high=size)
                    start.append(self.b.alloc_at_start(requested))
        for kind, found in spans.items():
            found.sort()
            for (a, a_end, a_where), (b, _, b_where) in zip(found, found[1:]):
                if b < a_end and a < a_end:
                    self.fail(b_where, f"overlaps {a_where} (the {kind}s at {a} and {b}): one "
                                       "device's memory holds no byte twice")
        return held, start


def read(path, device, builder):
    """Fills `builder` from the snapshot at `path`; returns (the blocks live at the end, the
    segments' reserved bytes, facts for the header)."""
    snapshot, size = load_plain(path)
    reader = _Reader(path, device, builder, size)
    held, facts = reader.read(snapshot)
    # Kept until the process ends (python3 -m memrel_trace leaves with os._exit): freeing a
    # snapshot's million dicts one by one takes a fifth of a second, for nothing.
    _KEPT.append(snapshot)
    return reader.live_at_end, held, facts
