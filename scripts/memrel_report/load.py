"""Reading and validating the report's results and benchmark inputs.

Two kinds of file come in here (the gate's verdicts, `--baseline-verdict`, are gate_verdict.py's):
  * results (`memrel.results/1`, docs/results-schema.md, docs/schemas/results.schema.json):
    refused unless the schema matches and every field the report uses has the documented type,
    so a plot never guesses;
  * Google Benchmark JSON from memrel_bench (`--bench`): its own schema, `benchmarks[]`, read by
    the memrel gbench reading rule (gbench.py; docs/schemas/benchmark.schema.json).

Every problem raises InputError (input_rules.py) whose text is one line, "FILE: what", which the
command line prints as "memrel report: FILE: what" before exiting with 2.
"""

import hashlib
import json
from dataclasses import dataclass, field

from memrel_outputs.file_name_text import as_text
from memrel_trace.name_characters import forbidden_name_character

from . import CELL_SCHEMA, SCHEMA, gbench
from .input_rules import MAX_EXACT_INTEGER, MAX_JSON_BYTES, InputError, read_json
from .units import TIME_UNIT_NS

__all__ = ["InputError", "MAX_JSON_BYTES", "STATUSES", "Run", "Cell", "BenchFile", "load_results",
           "collect_cells", "load_bench"]

# Statuses a cell may have: the enum of docs/schemas/results.schema.json, which a test holds this
# list and the C++ reader's (cell_statuses(), harness/results/cell_status.hpp) to. Anything else
# is refused: a reader that does not know a status cannot say whether its figures mean anything.
STATUSES = ("ok", "oom", "unavailable", "crashed", "timeout", "error")


@dataclass(frozen=True)
class Run:
    """One results file as read: its context and its cells (JSON objects, validated)."""

    path: str
    context: dict
    cells: list
    # The file's text by its SHA-256: how `history add` knows a copy as the same run (its bytes).
    text_sha256: str = ""


@dataclass(frozen=True)
class Cell:
    """A cell with the names the report shows. `label` is the backend, or "backend #N" when
    the same (backend, workload) pair comes from more than one results file (N: file number)."""

    backend: str
    workload: str
    status: str
    reason: str
    label: str
    run: int
    raw: dict = field(repr=False, compare=False)
    kind: str = ""  # the backend's family as its run describes it (context.backends[].kind)

    @property
    def ok(self):
        return self.status == "ok"


@dataclass(frozen=True)
class BenchFile:
    """A Google Benchmark JSON file: its context and its entries (validated)."""

    path: str
    context: dict
    entries: list


# --- type checks, each naming where in the document it failed ----------------------------------

class _Bad(Exception):
    pass


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_EXACT_INTEGER


def _is_uint(v):
    return _is_int(v) and v >= 0


def _is_number(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool) and abs(v) <= MAX_EXACT_INTEGER


_KINDS = {
    "int": (_is_int, "an integer from -2^53 to 2^53"),
    "int?": (lambda v: v is None or _is_int(v), "an integer from -2^53 to 2^53 or null"),
    "uint": (_is_uint, "an integer from 0 to 2^53"),
    "uint?": (lambda v: v is None or _is_uint(v), "an integer from 0 to 2^53 or null"),
    "num?": (lambda v: v is None or _is_number(v), "a number or null"),
    "num": (_is_number, "a number"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "obj": (lambda v: isinstance(v, dict), "an object"),
    "obj?": (lambda v: v is None or isinstance(v, dict), "an object or null"),
    "list": (lambda v: isinstance(v, list), "an array"),
    "str?": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "any": (lambda v: True, "any value"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list?": (lambda v: v is None or isinstance(v, list), "an array or null"),
}


# Optional context fields the report reads, with their kinds (docs/results-schema.md).
_CONTEXT = {"gpu_note": "str?", "gpu": "str?", "git_commit": "str?", "git_dirty": "bool",
            "backends": "list", "gpus": "list?", "cpu_count": "uint?", "options": "obj?"}


# A cell's timing (harness/results/results.hpp, CellTiming): the ns figures whole from 0 to 2^53.
_TIMING = {"started_by": "str", "exit_overlapped": "bool",
           **{k: "uint" for k in ("spawn_ns", "library_load_ns", "context_ns", "backend_init_ns",
                                  "work_ns", "probe_ns", "previous_exit_wait_ns", "exit_ns")}}


def _check(obj, where, fields):
    """obj must be an object holding `fields` ({name: kind}) of those kinds."""
    if not isinstance(obj, dict):
        raise _Bad(f"{where}: expected an object, got {_describe(obj)}")
    for name, kind in fields.items():
        test, wanted = _KINDS[kind]
        if name not in obj:
            raise _Bad(f'{where}: missing "{name}"')
        if not test(obj[name]):
            raise _Bad(f'{where}.{name}: expected {wanted}, got {_describe(obj[name])}')


def _describe(v):
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


# Every field docs/schemas/results.schema.json requires, with its type: the report refuses what
# the schema and the C++ reader refuse (tests/data/formats/results/, test_formats.py).
_SNAPSHOT = {"requested": "uint", "allocated": "uint?", "reserved": "uint?", "device_used": "uint",
             "device_used_delta": "int", "process_used": "uint?", "host_rss": "uint"}
_SETUP = {"memory_space": "str", "context_create_ns": "uint?", "device_used_before_context": "uint?",
          "device_used_after_context": "uint?", "process_used_after_context": "uint?",
          "backend_init_ns": "uint", "backend_init_device_bytes": "int",
          "backend_init_process_bytes": "int?", "baseline_device_used": "uint",
          "baseline_host_rss": "uint", "capacity_bytes": "uint", "process_probe_note": "str",
          "device": "any", "environment": "obj"}
_RELEASE_EFFECT = {"step": "uint", "releasable": "uint", "returned": "int", "effectiveness": "num?"}
_METRICS = {"peak_requested": "uint", "peak_allocated": "uint?", "peak_reserved": "uint?",
            "peak_device_used_delta": "int", "max_overhead_bytes": "int?",
            "overhead_ratio": "num?", "utilization": "num?", "release_effectiveness": "num?",
            "residual_bytes": "int?", "median_latency_ns": "obj", "releases": "list"}


# What the report reads of a trace cell's `trace` (docs/results-schema.md); other fields are
# shown only when present, so a later memrel.cell/1 with more of them still reads.
_TRACE = {"scale": "str", "events": "uint", "ooms": "uint", "series": "obj",
          "recorded_reserved": "obj?"}
# Every other field as harness/results/trace_results.hpp types it (TraceReplay), checked where
# present: a negative replay_ns, a sample_every "x" or a source_file null was drawn here, exit 0,
# where compare refused the file (the thirty-seventh adversarial pass,
# c4-report-accepts-trace-object-compare-refuses).
_TRACE_OPTIONAL = {"file": "str", "name": "str", "source_format": "str", "source_file": "str",
                   "device": "int", "allocs": "uint", "frees": "uint", "sample_every": "uint",
                   "peak_requested_event": "uint", "first_oom_event": "uint?",
                   "replay_ns": "uint", "allocator_ns": "uint", "ns_per_event": "num?",
                   "held_at_end_bytes": "int?", "median_latency_ns": "obj", "marks": "list"}
_SERIES_COLUMNS = {"event": "uint", "requested": "uint", "allocated": "uint?", "reserved": "uint?",
                   "device_used": "uint", "device_used_delta": "int"}


def _check_uints(values, where):
    for i, v in enumerate(values):
        if not _is_uint(v):
            raise _Bad(f"{where}[{i}]: expected an integer from 0 to 2^53, got {_describe(v)}")


def _is_trace_scale(scale):
    """"1" or "1/N" as memrel writes it (N from 2 to 999999999999999, no leading zero):
    harness/results/results.cpp, is_trace_scale_text."""
    if scale == "1":
        return True
    digits = scale[2:]
    return (scale.startswith("1/") and 0 < len(digits) <= 15 and digits[0] != "0"
            and all("0" <= c <= "9" for c in digits) and digits != "1")


def _check_events_within(events, last, where):
    for i, event in enumerate(events):
        if event > last:
            raise _Bad(f"{where}[{i}]: {event} is past the trace's {last} events")
        if i > 0 and event < events[i - 1]:
            raise _Bad(f"{where}[{i}]: {event} comes before the event ahead of it "
                       f"({events[i - 1]}): events are in order")


def _check_trace_consistent(trace, where):
    """The trace's figures agree with one another as the replay makes them, as compare checks
    them (harness/results/results.cpp, expect_trace_consistent): a scale "1/0" or a recorded
    reserved past the trace's end was drawn (the forty-sixth adversarial pass,
    c4-report-history-trace-scale-unchecked, c4-report-recorded-reserved-event-out-of-trace)."""
    events = trace["events"]
    if not _is_trace_scale(trace["scale"]):
        raise _Bad(f"{where}.scale: {json.dumps(trace['scale'])} is not 1 or 1/N "
                   "(N a whole number from 2 to 999999999999999)")
    allocs, frees = trace.get("allocs", 0), trace.get("frees", 0)
    if allocs + frees > events:
        raise _Bad(f"{where}.allocs: {allocs} allocations and {frees} frees are more than the "
                   f"trace's {events} events")
    if "allocs" in trace and trace["ooms"] > allocs:
        raise _Bad(f"{where}.ooms: {trace['ooms']} failed allocations of {allocs}")
    if trace.get("peak_requested_event", 0) > events:
        raise _Bad(f"{where}.peak_requested_event: {trace['peak_requested_event']} is past the "
                   f"trace's {events} events")
    if trace.get("first_oom_event") is not None and trace["first_oom_event"] >= events:
        raise _Bad(f"{where}.first_oom_event: {trace['first_oom_event']} is past the trace's "
                   f"{events} events")
    if "allocator_ns" in trace or "ns_per_event" in trace:
        ratio, exact = trace.get("ns_per_event"), None
        if events > 0:
            exact = trace.get("allocator_ns", 0) / events
        if (exact is None) != (ratio is None) or (
                exact is not None and abs(ratio - exact) > 1e-9 * max(1.0, abs(exact))):
            raise _Bad(f"{where}.ns_per_event: {json.dumps(ratio)} is not allocator_ns / events")
    _check_events_within([m["event"] for m in trace.get("marks", [])], events,
                         f"{where}.marks.event")
    _check_events_within(trace["series"]["event"], events, f"{where}.series.event")
    if trace["recorded_reserved"] is not None:
        _check_events_within(trace["recorded_reserved"]["event"], events,
                             f"{where}.recorded_reserved.event")


def _check_trace(trace, where):
    _check(trace, where, _TRACE)
    _check(trace, where, {k: kind for k, kind in _TRACE_OPTIONAL.items() if k in trace})
    for op, value in trace.get("median_latency_ns", {}).items():
        if not _is_uint(value):
            raise _Bad(f"{where}.median_latency_ns.{op}: expected an integer from 0 to 2^53, "
                       f"got {_describe(value)}")
    for i, mark in enumerate(trace.get("marks", [])):
        _check(mark, f"{where}.marks[{i}]", {"label": "str", "event": "uint"})
        _check(mark, f"{where}.marks[{i}]", {"probed": "bool"} if "probed" in mark else {})
    series = trace["series"]
    _check(series, f"{where}.series", {name: "list" for name in _SERIES_COLUMNS})
    length = len(series["event"])
    for name, kind in _SERIES_COLUMNS.items():
        column = series[name]
        if len(column) != length:
            raise _Bad(f"{where}.series.{name}: {len(column)} values, series.event has {length}")
        test, wanted = _KINDS[kind]
        for i, v in enumerate(column):
            if not test(v):
                raise _Bad(f"{where}.series.{name}[{i}]: expected {wanted}, got {_describe(v)}")
    recorded = trace["recorded_reserved"]
    if recorded is not None:
        _check(recorded, f"{where}.recorded_reserved", {"event": "list", "bytes": "list"})
        if len(recorded["event"]) != len(recorded["bytes"]):
            raise _Bad(f"{where}.recorded_reserved: event and bytes differ in length")
        _check_uints(recorded["event"], f"{where}.recorded_reserved.event")
        _check_uints(recorded["bytes"], f"{where}.recorded_reserved.bytes")
    _check_trace_consistent(trace, where)


def _names_as_written(path):
    """A check of the cells' names as the file holds them: a hand-edited name with ESC or BEL was
    reported (escaped), exit 0, where compare and history refused the file (the seventeenth
    adversarial pass, c6-report-results-hand-edited-*-control-char)."""
    def check(doc):
        cells = doc.get("cells") if isinstance(doc, dict) else None
        for i, cell in enumerate(cells if isinstance(cells, list) else []):
            for name in ("backend", "workload"):
                value = cell.get(name) if isinstance(cell, dict) else None
                if isinstance(value, str) and (bad := forbidden_name_character(value)):
                    raise InputError(path, f"cells[{i}].{name}: holds {bad}, a control, "
                                           "invisible, text-direction or noncharacter code point")
    return check


def _check_cell(cell, where):
    _check(cell, where, {"schema": "str"})
    if cell["schema"] != CELL_SCHEMA:
        raise _Bad(f'{where}.schema: "{cell["schema"]}" is not "{CELL_SCHEMA}"')
    _check(cell, where, {"backend": "str", "workload": "str", "workload_source": "str", "status": "str",
                         "reason": "str", "wall_ns": "uint", "setup": "obj", "marks": "list",
                         "steps": "list", "releases": "list", "metrics": "obj"})
    if cell["status"] not in STATUSES:
        raise _Bad(f'{where}.status: "{cell["status"]}" is none of {", ".join(STATUSES)}')
    # As harness/results/results.cpp reads it: a '/' splits the subject backend/workload, a '#'
    # or a space makes a "backend #N" label of collect_cells (the tenth adversarial pass); and
    # neither name is empty (the twentieth, c10-results-backend-name-empty-accepted).
    for name in ("backend", "workload"):
        if not cell[name]:
            raise _Bad(f"{where}.{name}: is empty; every {name} has a name")
    for c in "/# ":
        if c in cell["backend"]:
            raise _Bad(f"{where}.backend: {json.dumps(cell['backend'])} holds {c!r}, which no "
                       "backend's name holds")
    # As compare and history read them (a control character is checked in the raw document,
    # _names_as_written, before read_json makes it visible).
    for name in ("backend", "workload"):
        if bad := forbidden_name_character(cell[name]):
            raise _Bad(f"{where}.{name}: holds {bad}, a control, invisible, text-direction or noncharacter "
                       "code point")
    _check(cell["setup"], f"{where}.setup", _SETUP)
    # As harness/results/results.cpp reads it (expect_known_memory_space): empty only for a cell
    # that never started; another word drew no chart, "internal error" (the sixty-first
    # adversarial pass, c9-report-unknown-memory-space-internal-error).
    if cell["setup"]["memory_space"] not in ("device", "host", ""):
        raise _Bad(f'{where}.setup.memory_space: {json.dumps(cell["setup"]["memory_space"])} is '
                   "neither device nor host (nor empty, for a cell that never started)")
    _check(cell["setup"]["environment"], f"{where}.setup.environment",
           {name: "str" for name in cell["setup"]["environment"]})
    for i, mark in enumerate(cell["marks"]):
        w = f"{where}.marks[{i}]"
        _check(mark, w, {"label": "str", "step": "uint", "at": "obj"})
        _check(mark["at"], f"{w}.at", _SNAPSHOT)
    for i, step in enumerate(cell["steps"]):
        w = f"{where}.steps[{i}]"
        _check(step, w, {"op": "str", "id": "str", "location": "str", "bytes": "uint", "latency_ns": "uint",
                         "outcome": "str", "after": "obj"})
        _check(step["after"], f"{w}.after", _SNAPSHOT)
    for i, rel in enumerate(cell["releases"]):
        w = f"{where}.releases[{i}]"
        _check(rel, w, {"step": "uint", "latency_ns": "uint", "before": "obj", "after": "obj"})
        _check(rel["before"], f"{w}.before", _SNAPSHOT)
        _check(rel["after"], f"{w}.after", _SNAPSHOT)
    # As harness/results/results.cpp reads a cell's timing (every field optional): a work_ns of
    # -5, refused by compare and history, was drawn here, exit 0 (the twenty-seventh adversarial
    # pass, c10-readers-disagree-negative-timing).
    if cell.get("timing") is not None:
        timing = cell["timing"]
        _check(timing, f"{where}.timing", {})  # an object
        _check(timing, f"{where}.timing", {k: _TIMING[k] for k in timing if k in _TIMING})
    if cell.get("trace") is not None:
        _check_trace(cell["trace"], f"{where}.trace")
    if cell.get("program_allocator") is not None:
        placement = cell["program_allocator"]
        _check(placement, f"{where}.program_allocator", {"cache_layer": "str"})
        # framework and allocator since the backend families; "torch_allocator" before them.
        _check(placement, f"{where}.program_allocator",
               {k: "str" for k in ("framework", "allocator", "torch_allocator") if k in placement})
    if cell.get("gpu") is not None:
        gpu = cell["gpu"]
        _check(gpu, f"{where}.gpu", {"index": "uint"})
        _check(gpu, f"{where}.gpu", {"uuid": "str?"} if "uuid" in gpu else {})
    metrics = cell["metrics"]
    _check(metrics, f"{where}.metrics", _METRICS)
    for i, effect in enumerate(metrics["releases"]):
        _check(effect, f"{where}.metrics.releases[{i}]", _RELEASE_EFFECT)
    for op, value in metrics["median_latency_ns"].items():
        if not _is_uint(value):
            raise _Bad(f"{where}.metrics.median_latency_ns.{op}: expected an integer from 0 to 2^53, "
                       f"got {_describe(value)}")
    _check_peak_ratios(metrics, f"{where}.metrics")
    _check_release_effectiveness(metrics, f"{where}.metrics")


def _check_release_effectiveness(metrics, where):
    """Release effectiveness is returned / releasable, each release's and the cell's, as the C++
    reader has it (harness/results/results.cpp, expect_effectiveness_of_its_parts): 5.0 and -2.0
    were tabulated here, exit 0, where compare and history refused the file (the thirty-seventh
    adversarial pass, c4-report-accepts-impossible-release-effectiveness)."""
    returned = releasable = 0
    for i, effect in enumerate(metrics["releases"]):
        if not _is_ratio_of(effect["effectiveness"], effect["returned"], effect["releasable"]):
            raise _Bad(f"{where}.releases[{i}].effectiveness: {_describe(effect['effectiveness'])} "
                       f"is not returned / releasable ({effect['returned']} / "
                       f"{effect['releasable']})")
        if effect["releasable"] > 0:
            returned += effect["returned"]
            releasable += effect["releasable"]
    if not _is_ratio_of(metrics["release_effectiveness"], returned, releasable):
        raise _Bad(f"{where}.release_effectiveness: {_describe(metrics['release_effectiveness'])} "
                   "is not the releases' returned / releasable bytes")


def _is_ratio_of(ratio, part, whole):
    """As the C++ reader (harness/results/results.cpp, is_ratio_of): absent where the whole is 0,
    else the parts' ratio within a double's rounding."""
    if whole <= 0:
        return ratio is None
    if ratio is None:
        return False
    exact = part / whole
    return abs(ratio - exact) <= 1e-9 * max(1.0, abs(exact))


def _check_peak_ratios(metrics, where):
    """overhead_ratio and utilization are their peaks' ratios, as memrel computes them: -1e15 and
    9e15 were read and ranked best (the thirty-third adversarial pass,
    c4-results-negative-overhead-ratio-ranked-best); the C++ readers refuse them too."""
    reserved = metrics["peak_reserved"]
    allocated = metrics["peak_allocated"]
    if not _is_ratio_of(metrics["overhead_ratio"], reserved or 0,
                        metrics["peak_requested"] if reserved is not None else 0):
        raise _Bad(f"{where}.overhead_ratio: {_describe(metrics['overhead_ratio'])} is not "
                   "peak_reserved / peak_requested")
    if not _is_ratio_of(metrics["utilization"], allocated or 0,
                        (reserved or 0) if allocated is not None else 0):
        raise _Bad(f"{where}.utilization: {_describe(metrics['utilization'])} is not "
                   "peak_allocated / peak_reserved")


def _refuse_both_kinds(path, doc):
    """A document with "schema" and "benchmarks" is refused as either kind, as the gate refuses it
    (gate/read/input_file.cpp): the report drew it as a results file, as --bench, and as both at
    once (the fifty-eighth adversarial pass, c10-both-kinds-report-takes-what-gate-refuses)."""
    if "schema" in doc and "benchmarks" in doc:
        raise InputError(path, 'has both "schema" (a memrel results file) and "benchmarks" '
                               "(Google Benchmark JSON): ambiguous, refused")


def load_results(path):
    """Reads one results file; raises InputError unless it is a valid memrel.results/1 document."""
    texts = []
    doc = read_json(path, check_raw=_names_as_written(path), on_text=texts.append)
    if not isinstance(doc, dict):
        raise InputError(path, f"not a results document (a JSON {type(doc).__name__}, expected an object)")
    _refuse_both_kinds(path, doc)
    if "schema" not in doc:
        hint = " (this looks like Google Benchmark JSON: pass it with --bench)" if "benchmarks" in doc else ""
        raise InputError(path, f'missing "schema" (expected "{SCHEMA}"){hint}')
    if doc["schema"] != SCHEMA:
        hint = " (a single cell's file: pass the run's results file)" if doc["schema"] == CELL_SCHEMA else ""
        given = doc["schema"] if isinstance(doc["schema"], str) else ""
        if not hint and given.startswith("memrel.") and given.split("/")[0] != SCHEMA.split("/")[0]:
            # Another kind of memrel's files, said as that kind, as the C++ readers say it
            # (harness/results/results.cpp, expect_schema).
            raise InputError(path, f'schema {_describe(doc["schema"])}: a {given.split("/")[0]} file, '
                                   f'not a {SCHEMA.split("/")[0]} file')
        raise InputError(path, f'schema {_describe(doc["schema"])} is not "{SCHEMA}"{hint}')
    try:
        _check(doc, "document", {"context": "obj", "cells": "list"})
        # The context's fields the report reads, where present: a `gpu_note` of true was
        # "internal error: TypeError", exit 4 (the sixteenth adversarial pass,
        # c10-report-context-*-wrong-type).
        context = doc["context"]
        _check(context, "context", {name: kind for name, kind in _CONTEXT.items() if name in context})
        first = {}
        for i, cell in enumerate(doc["cells"]):
            _check_cell(cell, f"cells[{i}]")
            key = f'{cell["backend"]}/{cell["workload"]}'
            if key in first:
                # As the gate (docs/gate.md, "Refused"): two answers for one cell.
                raise _Bad(f"cells[{i}]: cell {key} is also cells[{first[key]}]: a cell twice in one "
                           "file cannot be judged")
            first[key] = i
    except _Bad as e:
        raise InputError(path, str(e)) from None
    return Run(path=as_text(path), context=doc["context"], cells=doc["cells"],
               text_sha256=hashlib.sha256(texts[0].encode("utf-8", "surrogatepass")).hexdigest())


def collect_cells(runs):
    """Every cell of every run, in order, labelled. When a (backend, workload) pair occurs in more
    than one run, that backend's cells are labelled "backend #N" (N: the run's number from 1) in
    every run, so the plots keep the runs apart instead of drawing one over the other."""
    seen = {}
    for r, run in enumerate(runs):
        for cell in run.cells:
            seen.setdefault((cell["backend"], cell["workload"]), set()).add(r)
    repeated = {backend for (backend, _), rs in seen.items() if len(rs) > 1}
    cells = []
    for r, run in enumerate(runs):
        kinds = {b["name"]: b["kind"] for b in run.context.get("backends", []) or []
                 if isinstance(b, dict) and isinstance(b.get("name"), str) and isinstance(b.get("kind"), str)}
        for cell in run.cells:
            backend = cell["backend"]
            label = f"{backend} #{r + 1}" if backend in repeated else backend
            cells.append(Cell(backend=backend, workload=cell["workload"], status=cell["status"],
                              reason=cell["reason"], label=label, run=r, raw=cell,
                              kind=kinds.get(backend, "")))
    return cells


def load_bench(path):
    """Reads one Google Benchmark JSON file (`--benchmark_out_format=json`). It accepts what the
    memrel gbench reading rule accepts (gbench.py, docs/benchmark-json.md): an entry that did
    not run, or an aggregate the rule ignores, needs no real_time; time_unit may be absent (ns)."""
    doc = read_json(path)
    if isinstance(doc, dict):
        _refuse_both_kinds(path, doc)
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        hint = " (this is a memrel results file: pass it without --bench)" if (
            isinstance(doc, dict) and doc.get("schema") == SCHEMA) else ""
        raise InputError(path, f'not Google Benchmark JSON (no "benchmarks" array){hint}')
    # Google Benchmark always writes its context; the gate refuses a file without one, and so
    # does the report (docs/schemas/benchmark.schema.json).
    if "context" not in doc:
        raise InputError(path, 'missing "context" object')
    context = doc["context"]
    if not isinstance(context, dict):
        raise InputError(path, f"context: expected an object, got {_describe(context)}")
    try:
        for i, entry in enumerate(doc["benchmarks"]):
            where = f"benchmarks[{i}]"
            _check(entry, where, {"name": "str"})
            if not gbench.is_timed(entry):
                continue  # did not run (listed in the report as skipped), or stddev, cv, BigO...
            _check(entry, where, {"real_time": "num"})
            unit = entry.get("time_unit", "ns")
            if not isinstance(unit, str) or unit not in TIME_UNIT_NS:
                known = ", ".join(TIME_UNIT_NS)
                raise _Bad(f"{where}.time_unit: {_describe(unit)} is none of {known}")
    except _Bad as e:
        raise InputError(path, str(e)) from None
    gbench.read_series(doc, path)  # the rule's own checks; the ones above give the same verdict
    return BenchFile(path=as_text(path), context=context, entries=doc["benchmarks"])

