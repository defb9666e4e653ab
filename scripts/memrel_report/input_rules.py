"""The input rules of every file the report reads (docs/inputs.md), the same as the C++ tools'
(platform/input_rules.cpp), and the error that names an unusable file. Below load.py, gbench.py
and gate_verdict.py, which all read by these rules and raise this error: none imports another for
them.

Every problem raises InputError whose text is one line, "FILE: what", which the command line
prints as "memrel report: FILE: what" before exiting with 2.
"""

import json
import math
import os
import re
import stat

import memrel_outputs
from memrel_outputs import memrel_kinds
from memrel_outputs.one_line import one_line, visible


class InputError(Exception):
    """An unusable input file. str() is one line: 'FILE: what'."""

    def __init__(self, path, what):
        # One line, whatever the cause said: a newline in a name escaped (\n), as every writer
        # says it; joined into a space it named another path (the fifty-second adversarial pass,
        # c9-report-newline-as-space).
        what = one_line(str(what).strip())
        super().__init__(f"{path}: {what}")
        self.path = path
        self.what = what


# The input rules of docs/inputs.md, the same as the C++ tools' (platform/input_rules.cpp): a
# regular file, opened without blocking, under a cap; JSON with no key twice in one object, no
# NaN or Infinity, no number a double cannot hold; integers within 2^53.
MAX_JSON_BYTES = 128 << 20      # results and Google Benchmark files (kMaxResultsFileBytes)
MAX_VERDICT_BYTES = 128 << 20   # as results: compare --json of two of those (c7-compare-json-*)
MAX_EXACT_INTEGER = 1 << 53


def read_bytes(path, cap):
    """The file's bytes: refused unless a regular file of at most `cap` bytes. O_NONBLOCK: a FIFO
    with no writer would otherwise block the open forever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as e:
        if (kind := memrel_outputs.unopenable_kind(path)) is not None:  # a socket, say
            raise InputError(path, f"{kind}, not a regular file: an input must be a regular file") from None
        raise InputError(path, f"cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = memrel_outputs.kind_name(st.st_mode)
            raise InputError(path, f"{kind}, not a regular file: an input must be a regular file")
        if st.st_size > cap:
            raise InputError(path, f"{st.st_size} bytes, more than the {cap >> 20} MiB an input "
                                   "of this kind may have (docs/inputs.md)")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read(cap + 1)
        except OSError as e:
            raise InputError(path, f"cannot read ({e.strerror or e})") from None


def read_text(path, cap):
    data = read_bytes(path, cap)
    # memrel's own other kind of file, named so, as the C++ readers say it (read_input_json): a
    # trace was "not UTF-8 text (byte 3833)" (the thirty-first adversarial pass,
    # c10-other-kind-said-malformed-or-old), a history "not UTF-8 text (byte 102)" (the
    # seventy-first), a pickle "not UTF-8 text (byte 0)" (the seventy-seventh), a journal "Extra
    # data" (the forty-ninth, c10-journal-as-results).
    kind = memrel_kinds.other_memrel_kind(data, "JSON document")
    if kind:
        raise InputError(path, kind)
    try:
        # A leading byte order mark is passed over, as the C++ reader (nlohmann::json) does and
        # RFC 8259 allows: compare and history took such a file and report refused it (the
        # eighth adversarial pass, c0-bom-consistency).
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(path, f"not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise InputError(path, "empty file")
    return text


class _Ambiguous(Exception):
    pass


def _unique_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _Ambiguous(key)
        seen.add(key)
    return dict(pairs)


def _refuse_constant(name):
    raise _Ambiguous(f"{name} is not JSON")


# As platform/input_rules.cpp says a number no double holds: its first digits and its length (a
# number of 300,000 digits was echoed whole: the sixty-eighth adversarial pass,
# c4-cpp-reader-echoes-huge-number).
_SHOWN_LITERAL_CHARS = 24


def _number_overflow(text):
    if len(text) <= _SHOWN_LITERAL_CHARS:
        return _Ambiguous(f"number overflow parsing '{text}'")
    return _Ambiguous(f"number overflow parsing '{text[:_SHOWN_LITERAL_CHARS]}...' "
                      f"({len(text)} characters)")


def _finite_float(text):
    value = float(text)
    if math.isinf(value):
        raise _number_overflow(text)
    return value


def _whole_number(text):
    """An integer, where a double holds it, as the C++ readers take one (nlohmann reads a larger
    integer as a double, and refuses one no double holds): one of 5000 digits was Python's
    "Exceeds the limit (4300 digits)", exit 4 (the sixty-eighth adversarial pass,
    c4-report-5000-digit-integer-exit4)."""
    if math.isinf(float(text)):
        raise _number_overflow(text)
    return int(text)


def _duplicate_place(text):
    """The JSON pointer of the first object holding a key twice (only on the error path)."""
    doc = json.loads(text, object_pairs_hook=lambda pairs: ("pairs", pairs))

    def walk(v, place):
        if isinstance(v, tuple) and v[:1] == ("pairs",):
            keys = [k for k, _ in v[1]]
            if len(set(keys)) != len(keys):
                return place or "/"
            for k, item in v[1]:
                found = walk(item, f"{place}/{k.replace('~', '~0').replace('/', '~1')}")
                if found:
                    return found
        elif isinstance(v, list):
            for i, item in enumerate(v):
                found = walk(item, f"{place}/{i}")
                if found:
                    return found
        return None

    return walk(doc, "")


def _lone_surrogate_place(doc):
    """The JSON pointer of the first string (a key or a value) holding a lone surrogate, or None."""
    todo = [(doc, "")]
    while todo:
        v, place = todo.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, item in items:
            here = f"{place}/{str(k).replace('~', '~0').replace('/', '~1')}"
            for text in ((k, item) if isinstance(k, str) else (item,)):
                if isinstance(text, str):
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        return here.encode("utf-8", "backslashreplace").decode("ascii")
            todo.append((item, here))
    return None


def _visible_strings(doc):
    """doc with every string value's control characters written as one_line writes them
    (memrel_outputs.one_line.visible): a cell's reason, a mark's label, the machine's description
    or a backend file's description holding ESC or NUL reached the pages, report.md, the terminal
    and the SVG charts raw, where an SVG cannot hold them at all (the ninth adversarial pass,
    c9-context-mark-label-report, c9-report-svg-control-char). One place, for every output."""
    if isinstance(doc, str):
        return visible(doc)
    if isinstance(doc, list):
        return [_visible_strings(v) for v in doc]
    if isinstance(doc, dict):
        return {k: _visible_strings(v) for k, v in doc.items()}
    return doc


def read_json(path, cap=MAX_JSON_BYTES, check_raw=None, on_text=None):
    """The JSON document of the file, by the rules above, or InputError naming the file.
    `check_raw(doc)`: called with the document before its strings are made visible (a name's
    control character is refused there, not shown escaped). `on_text(text)`: given the text read,
    so that no caller reads the file twice."""
    text = read_text(path, cap)
    if on_text is not None:
        on_text(text)
    doc = _parse_json(path, text)
    if check_raw is not None:
        check_raw(doc)
    # "\ud800" alone is valid JSON, and no text: Python keeps it as a lone surrogate that every
    # writer then refuses (the fourth adversarial pass, m20: report exit 4; compare refuses it).
    if re.search(r"\\u[dD][89a-fA-F]", text):
        place = _lone_surrogate_place(doc)
        if place is not None:
            raise InputError(path, f"{place}: a lone surrogate escape (\\ud800 to \\udfff without its "
                                   "pair) is not text: refused")
    return _visible_strings(doc)


# As deep as memrel's C++ readers take (kMaxJsonDepth, platform/input_rules.hpp): a results file
# nested 511 levels passed compare and history add, and the report's own walk of it (two Python
# frames a level) was "internal error: RecursionError" (the thirty-first adversarial pass,
# c4-report-results-nested-511-internal-error). Checked on the text, before json.loads, so that
# nothing after it walks deeper than this; the report's recursion limit leaves room for it.
MAX_JSON_DEPTH = 512
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")


def _nesting_depth(text):
    """How deeply the JSON text nests arrays and objects (the root's is 1), strings left out."""
    depth = deepest = 0
    for bracket in _NOT_A_BRACKET.sub("", _STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _parse_json(path, text):
    if _nesting_depth(text) > MAX_JSON_DEPTH:
        raise InputError(path, f"nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse_constant,
                          parse_float=_finite_float, parse_int=_whole_number)
    except json.JSONDecodeError as e:
        raise InputError(path, f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        # Nested deeper than Python's recursion limit (the second adversarial pass: 100,000
        # levels gave an internal error): no memrel file is nested more than a few levels.
        raise InputError(path, "JSON nested too deep to read: refused") from None
    except _Ambiguous as e:
        what = str(e)
        if what.endswith("is not JSON") or what.startswith("number overflow"):
            raise InputError(path, what) from None
        raise InputError(path, f'{_duplicate_place(text)}: key "{what}" appears twice in one '
                               "object: ambiguous, refused") from None
