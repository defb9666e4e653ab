"""The memrel gbench reading rule (memrel.gbench-reading/1): how memrel reads Google Benchmark
JSON (`--benchmark_out_format=json`). The regression gate (`memrel compare`, C++) and this report
follow the same rule; docs/benchmark-json.md gives the reasons, and tests/data/gbench-reading/
(input.json and expected.json, worked out by hand) is the fixture both readers are tested on.

1. Entries are grouped into series by `run_name`; when an entry has no string `run_name` (Google
   Benchmark < 1.5), by `name`, minus the suffix `_<aggregate_name>` when run_type is
   "aggregate" and the name ends with it.
2. An entry did not run when it has `"error_occurred": true`, or has an `error_message` string
   at all (Google Benchmark >= 1.8 writes `"error_occurred": false` plus `error_message` for
   SkipWithMessage), or `"skipped": true`. Then the whole series is skipped, with that message
   (the `error_message`/`skip_message` string, else "no reason given"), and has no figure and no
   counters. A series is skipped if any of its entries is.
3. Times are converted to ns by `time_unit` (ns, us, ms, s; absent means ns; anything else is an
   input error naming the entry: `benchmarks[i] (NAME): unknown time_unit "x"`). A non-skipped
   entry without numeric `real_time` is an input error (`benchmarks[i] (NAME): no numeric
   "real_time"`), except aggregates other than median/mean, which are ignored entirely.
4. The figure (`figure_ns`): the median of the `real_time` of the iteration entries (run_type
   "iteration" or absent), the mean of the two middle values for an even count. Without
   iteration entries: the "median" aggregate's real_time, else the "mean" aggregate's. Other
   aggregates (stddev, cv, BigO, RMS, anything else) are ignored. None of these: no figure
   (None). `repetitions` = number of iteration entries. `source` = "median of N" (also "median
   of 1"), "median aggregate", "mean aggregate", or None.
5. Counters: any numeric key not in Google Benchmark's own set (GBENCH_KEYS; `max_bytes_used` IS
   a counter):
   - byte counters (BYTE_COUNTERS) from the iteration entries: `max_bytes_used` is the LAST
     iteration entry's value (Google Benchmark 1.7.1 keeps earlier repetitions' MemoryManager
     results behind a pointer that goes stale); the others are the value most iteration entries
     share (on a tie between values, the smallest of them), or the median when no value occurs
     twice. Rounded to the nearest integer.
   - every other counter (ns_per_op, steps, bytes, ...): the median of the iteration entries'
     values, not rounded.
   - without iteration entries: each counter from the same aggregate entry the figure came
     from (byte counters rounded).
6. Series are listed in the order their first entry appears.

Where the rule leaves a choice open, this reader (and docs/benchmark-json.md) settles it so:
the message of a skipped series is its first skipped entry's (error_message before
skip_message); a skipped series has repetitions 0 and source None; every non-skipped entry is
checked (rule 3), also one that comes after a skipped entry of its series; a counter is taken
from the entries that have it (the last one that has it, for max_bytes_used); with several
median (or mean) aggregates in a series, the file is refused (a benchmark twice: also a
repetition_index seen twice in a series, or more iteration entries than its "repetitions"), as
are a real_time below 0 or above 2^53 ns and a byte counter outside 0..2^53 (overhead from
-2^53; max_bytes_used checked on its last repetition); a run_type other than
"aggregate" counts as an iteration entry; rounding takes halves away from zero (C++ llround).
"""

import json
import math
from collections import Counter
from dataclasses import dataclass, field

from .input_rules import InputError
from .units import TIME_UNIT_NS

RULE = "memrel.gbench-reading/1"

# Keys Google Benchmark writes itself: never counters, whatever their type.
GBENCH_KEYS = frozenset((
    "name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
    "aggregate_name", "aggregate_unit", "iterations", "real_time", "cpu_time", "time_unit",
    "error_occurred", "error_message", "skipped", "skip_message", "label", "family_index",
    "per_family_instance_index", "big_o", "cpu_coefficient", "real_coefficient", "rms",
    "allocs_per_iter",
))
# Counters that are bytes: a figure the allocator held, the same in every repetition when
# nothing went wrong, so the typical value rather than the median (rule 5).
BYTE_COUNTERS = ("max_bytes_used", "reserved", "peak_reserved", "reserved_before", "overhead")
# The aggregates that can stand for the figure, best first.
FIGURE_AGGREGATES = ("median", "mean")
NO_REASON = "no reason given"


@dataclass(frozen=True)
class Series:
    """One benchmark as the rule reads it."""

    name: str
    skipped: object = None      # why it did not run (a string), or None when it ran
    figure_ns: object = None    # float ns, or None: no figure
    repetitions: int = 0        # iteration entries
    source: object = None       # "median of N", "median aggregate", "mean aggregate", or None
    counters: dict = field(default_factory=dict)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_aggregate(entry):
    return entry.get("run_type") == "aggregate"


def aggregate_name(entry):
    """The aggregate's name ("median", "mean", "stddev", ...); "" for an iteration entry."""
    name = entry.get("aggregate_name") if is_aggregate(entry) else None
    return name if isinstance(name, str) else ""


def series_name(entry):
    """Rule 1: the series an entry belongs to."""
    if isinstance(entry.get("run_name"), str):
        return entry["run_name"]
    name = entry["name"]
    suffix = "_" + aggregate_name(entry)
    if is_aggregate(entry) and suffix != "_" and len(name) > len(suffix) and name.endswith(suffix):
        return name[: -len(suffix)]
    return name


def skip_message(entry):
    """Rule 2: why the entry did not run, or None when it ran."""
    if not (entry.get("error_occurred") is True or isinstance(entry.get("error_message"), str)
            or entry.get("skipped") is True):
        return None
    for key in ("error_message", "skip_message"):
        if isinstance(entry.get(key), str) and entry[key]:
            return entry[key]
    return NO_REASON


def is_timed(entry):
    """Whether the rule reads the entry's real_time: it ran, and it is an iteration entry or a
    median or mean aggregate (rule 3)."""
    if skip_message(entry) is not None:
        return False
    return not is_aggregate(entry) or aggregate_name(entry) in FIGURE_AGGREGATES


def median(values):
    """The middle value; the mean of the two middle ones for an even count."""
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def typical(values):
    """The value most share (the smallest of those tied), or the median when none repeats."""
    counts = Counter(values)
    most = max(counts.values())
    if most > 1:
        return min(v for v, c in counts.items() if c == most)
    return median(values)


def round_bytes(value):
    """The nearest integer, halves away from zero (as C++ llround); exact for large integers."""
    if isinstance(value, int):
        return value
    magnitude = abs(value)
    whole = math.floor(magnitude)
    whole += 1 if magnitude - whole >= 0.5 else 0
    return whole if value >= 0 else -whole


MAX_FIGURE = 1 << 53  # ns, bytes: the range of every figure (docs/benchmark-json.md)


def _real_time_ns(entry, where, path):
    value = entry.get("real_time")
    if not _is_number(value):
        raise InputError(path, f'{where}: no numeric "real_time"')
    unit = entry.get("time_unit", "ns")
    if not isinstance(unit, str) or unit not in TIME_UNIT_NS:
        raise InputError(path, f"{where}: unknown time_unit {json.dumps(unit, ensure_ascii=False)}")
    ns = value * TIME_UNIT_NS[unit]
    if not 0 <= ns <= MAX_FIGURE:
        raise InputError(path, f"{where}: real_time {json.dumps(value)} {unit} is impossible (0 to 2^53 ns)")
    if "iterations" in entry:
        # How many times it ran in the repetition: a whole number from 1, as the gate's rule
        # (gate/read/benchmark_json.cpp); -5 and 1.5 were read as a figure's own.
        n = entry["iterations"]
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_FIGURE:
            raise InputError(path, f"{where}: iterations {json.dumps(n)} is impossible "
                                   "(a whole number from 1 to 2^53)")
    for key, v in entry.items():
        if key in BYTE_COUNTERS and key != "max_bytes_used" and _is_number(v):
            _check_byte_counter(key, v, where, path)
    return ns


def _check_byte_counter(key, value, where, path):
    """Byte counters are 0 to 2^53 (overhead, reserved less live, from -2^53)."""
    lowest = -MAX_FIGURE if key == "overhead" else 0
    if not lowest <= value <= MAX_FIGURE:
        low = "-2^53" if key == "overhead" else "0"
        raise InputError(path, f'{where}: counter "{key}" = {json.dumps(value)} is impossible '
                               f"(byte counters are {low} to 2^53)")


MAX_REPETITIONS = 2 ** 31 - 1  # Google Benchmark's int


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_not_duplicate(group, entry, where, path):
    """A benchmark in the file twice has two answers: a repetition_index seen before in its
    series, more iteration entries than its "repetitions", or a second aggregate of one name is
    refused (the same check as the gate's, gate/read/benchmark_json.cpp). Both numbers are
    whole, 1 <= repetitions and 0 <= index < repetitions, as Google Benchmark writes them: any
    other value or spelling switched the check off (-3 read a series twice as "median of 6": the
    thirty-first adversarial pass, c4-bench-*-disables-duplicate-check)."""
    reps = entry.get("repetitions", 1)
    if not (_whole(reps) and 1 <= reps <= MAX_REPETITIONS):
        raise InputError(path, f'{where}: "repetitions" {json.dumps(reps)} is not a whole number '
                               "from 1 to 2^31-1")
    index = entry.get("repetition_index", 0)
    if not (_whole(index) and 0 <= index < entry.get("repetitions", MAX_REPETITIONS)):
        raise InputError(path, f'{where}: "repetition_index" {json.dumps(index)} is not a whole '
                               'number from 0 to its "repetitions" less 1')
    if is_aggregate(entry):
        name = entry.get("aggregate_name")
        if isinstance(name, str):
            if name in group.aggregate_names:
                raise InputError(path, f'{where}: a second "{name}" aggregate of this benchmark: in the file twice?')
            group.aggregate_names.add(name)
        return
    group.iteration_entries += 1
    index = entry.get("repetition_index")
    if isinstance(index, int) and not isinstance(index, bool):
        if index in group.repetition_indexes:
            raise InputError(path, f"{where}: repetition_index {index} a second time: the benchmark is in the file twice?")
        group.repetition_indexes.add(index)
    reps = entry.get("repetitions")
    if isinstance(reps, int) and not isinstance(reps, bool) and reps >= 0 and group.iteration_entries > reps:
        raise InputError(path, f'{where}: more iteration entries than its "repetitions" ({reps}): '
                               "the benchmark is in the file twice?")


def _counters(entries):
    """{counter: [values]} over entries, counters in the order they first appear."""
    values = {}
    for entry in entries:
        for key, value in entry.items():
            if key not in GBENCH_KEYS and _is_number(value):
                values.setdefault(key, []).append(value)
    return values


def _iteration_counters(entries):
    out = {}
    for name, values in _counters(entries).items():
        if name == "max_bytes_used":
            out[name] = round_bytes(values[-1])
        elif name in BYTE_COUNTERS:
            out[name] = round_bytes(typical(values))
        else:
            out[name] = median(values)
    return out


def _aggregate_counters(entry):
    return {name: round_bytes(values[0]) if name in BYTE_COUNTERS else values[0]
            for name, values in _counters([entry]).items()}


class _Group:
    def __init__(self):
        self.skipped = None
        self.times = []         # ns of each iteration entry
        self.iterations = []    # the iteration entries
        self.aggregates = {}    # "median"/"mean" -> (ns, entry)
        self.aggregate_names = set()
        self.repetition_indexes = set()
        self.iteration_entries = 0


def _series(name, group, path):
    if group.skipped is not None:
        return Series(name=name, skipped=group.skipped)
    if group.iterations:
        n = len(group.iterations)
        # The value taken is checked: the last repetition that has a number (a last "x" left
        # an earlier 2^60 unchecked, where compare refused it: the thirty-seventh adversarial
        # pass, c4-report-takes-impossible-max-bytes-used-behind-non-number).
        taken = _counters(group.iterations).get("max_bytes_used")
        if taken:
            _check_byte_counter("max_bytes_used", taken[-1], f"{name} (its last repetition)", path)
        return Series(name=name, figure_ns=median(group.times), repetitions=n,
                      source=f"median of {n}", counters=_iteration_counters(group.iterations))
    for kind in FIGURE_AGGREGATES:
        if kind in group.aggregates:
            ns, entry = group.aggregates[kind]
            return Series(name=name, figure_ns=ns, source=f"{kind} aggregate",
                          counters=_aggregate_counters(entry))
    return Series(name=name)


def read_series(doc, path):
    """The series of a Google Benchmark JSON document (parsed), by the rule above. `path` names
    the file in errors: raises input_rules.InputError(path, what) for input the rule refuses."""
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise InputError(path, 'not Google Benchmark JSON (no "benchmarks" array)')
    groups = {}
    for i, entry in enumerate(doc["benchmarks"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise InputError(path, f'benchmarks[{i}]: no "name"')
        group = groups.setdefault(series_name(entry), _Group())
        _check_not_duplicate(group, entry, f"benchmarks[{i}] ({entry['name']})", path)
        message = skip_message(entry)
        if message is not None:
            if group.skipped is None:
                group.skipped = message
            continue
        if not is_timed(entry):
            continue  # stddev, cv, BigO, RMS, a statistic of the user's: not a time of the run
        ns = _real_time_ns(entry, f"benchmarks[{i}] ({entry['name']})", path)
        if is_aggregate(entry):
            group.aggregates.setdefault(aggregate_name(entry), (ns, entry))
        else:
            group.times.append(ns)
            group.iterations.append(entry)
    return [_series(name, group, path) for name, group in groups.items()]
