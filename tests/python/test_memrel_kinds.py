"""memrel's own kinds of file said in one set of words (scripts/memrel_outputs/memrel_kinds.py, the
twin of platform/input_rules.cpp's other_memrel_kind): the Python readers name a file of another
kind as the C++ readers do."""

import pickle

import pytest

from test_hostile_inputs import needs_memrel, refused, scripts_module
from test_hostile_inputs_seventy_eighth_pass import _memrel

memrel_kinds = scripts_module("memrel_outputs.memrel_kinds")

JOURNAL = b'{"schema": "memrel.journal/1", "matrix": []}\n{"index": 0}\n'
KINDS = {
    "trace": b"MEMTRACE\x01\x00\x00\x00" + bytes(64),
    "pickle": pickle.dumps({"segments": []}, protocol=4),
    "journal": JOURNAL,
    "json-document": b'{"schema": "memrel.results/1"}',
    # One reading on both sides: a byte order mark before a journal, and a NaN in its header.
    "journal-after-a-byte-order-mark": b"\xef\xbb\xbf" + JOURNAL,
    "journal-header-with-a-nan": b'{"schema": "memrel.journal/1", "x": NaN}\n{"index": 0}\n',
}


@needs_memrel
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_history_changes_names_a_file_of_another_kind_as_history_list_does(tmp_path, kind):
    """A pickle given as the history was "a Python pickle ..., not a history database" to `history
    list` (C++) and "not an SQLite database" to `history changes` (Python)."""
    (tmp_path / "h.db").write_bytes(KINDS[kind])
    said_by_python = refused(_memrel("history", "--db", "h.db", "changes", cwd=tmp_path))
    said_by_cpp = refused(_memrel("history", "--db", "h.db", "list", cwd=tmp_path))
    assert said_by_python == said_by_cpp
    assert (tmp_path / "h.db").read_bytes() == KINDS[kind]


def test_each_kind_is_told_by_its_first_bytes_alone():
    told = {kind: memrel_kinds.other_memrel_kind(head, "X") for kind, head in KINDS.items()}
    assert told["trace"].startswith("a memrel trace (it begins with MEMTRACE), not a X")
    assert told["pickle"].startswith("a Python pickle (it begins with PROTO 4), not a X")
    assert told["journal"].startswith("a memrel journal (memrel.journal/1: ")
    assert told["json-document"] == ""  # what the JSON readers want: their own parser says more
    assert told["journal-after-a-byte-order-mark"] == told["journal"]
    assert told["journal-header-with-a-nan"] == ""  # NaN is no JSON: no journal's header
    assert memrel_kinds.other_memrel_kind(b"SQLite format 3\0" + bytes(84), "X").startswith(
        'an SQLite database (it begins with "SQLite format 3"), not a X')
    # A first line that is not a journal's header, or no second line: no journal.
    assert not memrel_kinds.is_journal(b'{"schema": "memrel.results/1"}\n{}\n')
    assert not memrel_kinds.is_journal(JOURNAL.split(b"\n")[0])
    assert not memrel_kinds.is_journal(b"[" * 100000 + b"\n")
    # A byte order mark before it, as the JSON readers pass one over.
    assert memrel_kinds.is_journal(b"\xef\xbb\xbf" + JOURNAL)


@needs_memrel
def test_the_importer_names_a_journal_behind_a_byte_order_mark(tmp_path):
    """A journal with a byte order mark was "a memrel journal" to the report and "truncated or
    malformed pickle" to the importer, which looked for its header at byte 0."""
    (tmp_path / "j.pickle").write_bytes(b"\xef\xbb\xbf" + JOURNAL)
    line = refused(_memrel("trace", "import", "j.pickle", "-o", "t.memtrace", cwd=tmp_path))
    assert "a memrel journal (memrel.journal/1" in line
    assert not (tmp_path / "t.memtrace").exists()
