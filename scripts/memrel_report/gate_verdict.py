"""The gate's verdicts as `memrel compare --json` writes them (`memrel.gate-verdicts/1`,
docs/schemas/gate-verdicts.schema.json), read for the report's "Gate verdict": every row with its
change, p-value, verdict and reason, and the summary. Data, not the Markdown table: the report
never parses text the gate formatted for people.

Refused, one line naming the file and the place: anything the schema refuses that the report
would use, and a summary that disagrees with the rows (a document that says two things).
"""

import json
import math
from dataclasses import dataclass

from memrel_outputs.file_name_text import as_text

from .input_rules import MAX_VERDICT_BYTES, InputError, read_json

SCHEMA = "memrel.gate-verdicts/1"
# The gate's words, in the order of its enum (gate/verdict.hpp): the schema's enum, which a test
# holds this and the C++ list to.
VERDICTS = ("ok", "improved", "REGRESSION", "info", "missing", "new", "skipped")
FAILING = ("REGRESSION", "missing")
COMPARED = ("ok", "improved", "REGRESSION", "info")  # figures present on both sides
_ROW_STRINGS = ("subject", "metric", "baseline", "current", "change", "verdict", "reason")


@dataclass(frozen=True)
class Row:
    subject: str
    metric: str
    baseline: str
    current: str
    change: str
    p_value: object   # float, or None where no rank test ran
    verdict: str
    reason: str


@dataclass(frozen=True)
class FileVerdict:
    title: str
    baseline: str
    current: str
    rows: list


@dataclass(frozen=True)
class GateVerdict:
    path: str
    baseline: str
    current: str
    files: list
    counts: dict      # verdict word -> rows
    result: str       # "PASS" or "FAIL"
    exit_code: int

    def summary_line(self):
        c = self.counts
        compared = sum(c[v] for v in COMPARED)
        return (f"{self.result}: {compared} compared, {c['REGRESSION']} regressions, {c['missing']} "
                f"missing, {c['new']} new ({c['improved']} improved, {c['info']} info, "
                f"{c['skipped']} skipped)")


class _Bad(Exception):
    pass


def _describe(v):
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _object(v, where, fields):
    """v must be an object holding every key of `fields` ({name: (test, wanted)})."""
    if not isinstance(v, dict):
        raise _Bad(f"{where}: expected an object, got {_describe(v)}")
    for name, (test, wanted) in fields.items():
        if name not in v:
            raise _Bad(f'{where}: missing "{name}"')
        if not test(v[name]):
            raise _Bad(f"{where}.{name}: expected {wanted}, got {_describe(v[name])}")
    return v


_STR = (lambda v: isinstance(v, str), "a string")
_LIST = (lambda v: isinstance(v, list), "an array")
_OBJ = (lambda v: isinstance(v, dict), "an object")
_COUNT = (lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1 << 53,
          "an integer from 0 to 2^53")
_P = (lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1),
      "a number from 0 to 1 or null")


def _number(v, low, high=None, low_open=False):
    """A finite number from low (above it, low_open) to high."""
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and (v > low if low_open else v >= low) and (high is None or v <= high))


_RULES = {
    "alpha": (lambda v: _number(v, 0, 1, low_open=True), "a number above 0, at most 1"),
    "latency_min_change": (lambda v: _number(v, 0), "a finite number from 0"),
    "min_repetitions": (_COUNT[0], _COUNT[1]),
    "latency_gated": (lambda v: isinstance(v, bool), "true or false"),
    "machine_drift": (lambda v: v is None or _number(v, 0), "a finite number or null"),
    "byte_tolerance": (lambda v: v is None or isinstance(v, dict), "an object or null"),
}


def _rules(v, where):
    """The rules as the schema has them, though the report shows none of them: a document whose
    alpha is -1, or lacks one, is not what memrel compare wrote (the thirty-seventh adversarial
    pass, c4-verdict-rules-out-of-schema-accepted)."""
    _object(v, where, _RULES)
    if v["byte_tolerance"] is not None:
        _object(v["byte_tolerance"], f"{where}.byte_tolerance",
                {"absolute_bytes": _COUNT,
                 "relative": (lambda x: _number(x, 0), "a finite number from 0")})
    if "drift_spread" in v and not (v["drift_spread"] is None or _number(v["drift_spread"], 0)):
        raise _Bad(f"{where}.drift_spread: expected a finite number from 0 or null, got "
                   f"{_describe(v['drift_spread'])}")


def _row(v, where):
    _object(v, where, dict({name: _STR for name in _ROW_STRINGS}, p_value=_P))
    if v["verdict"] not in VERDICTS:
        raise _Bad(f'{where}.verdict: {_describe(v["verdict"])} is none of {", ".join(VERDICTS)}')
    return Row(**{name: v[name] for name in _ROW_STRINGS}, p_value=v["p_value"])


def _summary(v, rows, where):
    _object(v, where, {"counts": _OBJ, "compared": _COUNT, "result": _STR, "exit_code": _COUNT,
                       "exit_meaning": _STR})
    counts = _object(v["counts"], f"{where}.counts", {name: _COUNT for name in VERDICTS})
    for name in VERDICTS:
        found = sum(r.verdict == name for r in rows)
        if counts[name] != found:
            raise _Bad(f'{where}.counts.{name}: {counts[name]}, but {found} rows say "{name}"')
    compared = sum(counts[name] for name in COMPARED)
    if v["compared"] != compared:
        raise _Bad(f"{where}.compared: {v['compared']}, but the counts of {', '.join(COMPARED)} add up to {compared}")
    failing = any(counts[name] for name in FAILING)
    if (v["result"], v["exit_code"]) != (("FAIL", 1) if failing else ("PASS", 0)):
        raise _Bad(f'{where}: result {_describe(v["result"])} and exit_code {v["exit_code"]} disagree '
                   f'with the counts ({"some" if failing else "no"} regression or missing rows)')
    return {name: counts[name] for name in VERDICTS}, v["result"], v["exit_code"]


def load_verdict(path):
    """The verdicts of one `memrel compare --json` (or `memrel ab --json`) file, or InputError."""
    doc = read_json(path, MAX_VERDICT_BYTES)
    if not isinstance(doc, dict):
        raise InputError(path, f"not a verdicts document (a JSON {type(doc).__name__}, expected an object)")
    if "schema" not in doc:
        raise InputError(path, f'missing "schema" (expected "{SCHEMA}": the file memrel compare --json wrote)')
    if doc["schema"] != SCHEMA:
        raise InputError(path, f'schema {_describe(doc["schema"])} is not "{SCHEMA}"')
    try:
        _object(doc, "document", {"baseline": _STR, "current": _STR, "rules": _OBJ, "files": _LIST,
                                  "summary": _OBJ})
        _rules(doc["rules"], "rules")
        files, rows = [], []
        for i, f in enumerate(doc["files"]):
            where = f"files[{i}]"
            _object(f, where, {"title": _STR, "baseline": _STR, "current": _STR, "rows": _LIST})
            file_rows = [_row(r, f"{where}.rows[{j}]") for j, r in enumerate(f["rows"])]
            rows += file_rows
            files.append(FileVerdict(title=f["title"], baseline=f["baseline"], current=f["current"],
                                     rows=file_rows))
        counts, result, exit_code = _summary(doc["summary"], rows, "summary")
    except _Bad as e:
        raise InputError(path, str(e)) from None
    return GateVerdict(path=as_text(path), baseline=doc["baseline"], current=doc["current"], files=files,
                       counts=counts, result=result, exit_code=exit_code)
