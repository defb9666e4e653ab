"""memrel's own kinds of file, told by their first bytes and said in one set of words: the twin of
the C++ readers' other_memrel_kind (platform/input_rules.cpp), for the Python parts that read a
file of one kind (the report's JSON documents, the trace importer's snapshots and logs, history
changes' database). Each said a kind given where another goes in its own words, or not at all (the
thirty-first, seventy-first, seventy-seventh, seventy-ninth and eighty-first adversarial passes)."""

import json

TRACE_MAGIC = b"MEMTRACE"
SQLITE_MAGIC = b"SQLite format 3\0"
JOURNAL_SCHEMA = "memrel.journal/1"

# How much of a file tells its kind: a journal's header line holds the run's whole context, longer
# than the 4 KiB the readers looked at (kOtherKindHeadBytes, platform/input_rules.hpp).
HEAD_BYTES = 1 << 20


def is_trace(head):
    return head.startswith(TRACE_MAGIC)


def is_history(head):
    return head.startswith(SQLITE_MAGIC)


def pickle_protocol(head):
    """The protocol of a pickle of protocol 2 or later (PROTO and its number), else None."""
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return head[1]
    return None


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def is_journal(head):
    """A header line naming memrel.journal/1, then a line per finished cell (a leading byte order
    mark passed over, as the JSON readers pass it over): platform/input_rules.cpp's is_a_journal."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    first, newline, _ = head.partition(b"\n")
    if not head.startswith(b"{") or not newline:
        return False
    try:
        # NaN and Infinity are no JSON: the C++ readers' header (nlohmann) refuses them too.
        header = json.loads(first, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        # Not JSON, or nested past Python's recursion limit: no journal's header (the sixty-third
        # adversarial pass, c10-report-journal-sniff-deep-json-exit4).
        return False
    return isinstance(header, dict) and header.get("schema") == JOURNAL_SCHEMA


def is_json_document(head):
    return head.lstrip(b" \t\r\n").startswith(b"{")


def trace_words(what):
    return f"a memrel trace (it begins with MEMTRACE), not a {what}: a trace is a workload (-w)"


def history_words(what):
    return (f"an SQLite database (it begins with \"SQLite format 3\"), not a {what}: a history is "
            "read with `memrel history --db` or `report --history`")


def pickle_words(protocol, what):
    return (f"a Python pickle (it begins with PROTO {protocol}), not a {what}: a PyTorch snapshot "
            "is imported with `memrel trace import`, or run as -w")


def journal_words(what):
    return (f"a memrel journal ({JOURNAL_SCHEMA}: the cells an interrupted run finished), not a "
            f"{what}: finish that run with --resume")


def other_memrel_kind(head, what):
    """Why HEAD (a file's first bytes) is memrel's own other kind, not a WHAT ("" when it is none
    of them), in the C++ readers' words."""
    if is_trace(head):
        return trace_words(what)
    if is_journal(head):
        return journal_words(what)
    if is_history(head):
        return history_words(what)
    protocol = pickle_protocol(head)
    if protocol is not None:
        return pickle_words(protocol, what)
    return ""
