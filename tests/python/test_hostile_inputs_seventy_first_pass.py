"""What the seventy-first adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-first pass"). Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")

C_READERS = [["history", "--db", "F", "list"], ["history", "--db", "F", "add", HOST_RUN],
             ["history", "--db", "F", "show", "1"]]
PYTHON_READERS = [["history", "--db", "F", "changes"],
                  ["report", "--history", "F", "--out", "rep", HOST_RUN]]


@needs_memrel
@pytest.mark.parametrize("content", [b"\n", b"x", b"SQLite format 3"], ids=["newline", "x",
                                                                            "the-magic-cut"])
@pytest.mark.parametrize("command", C_READERS + PYTHON_READERS,
                         ids=lambda c: "-".join(w for w in c[:4] if w not in ("F", "--db")))
def test_a_short_file_that_is_no_database_is_not_made_a_history(tmp_path, command, content):
    """c10-one-byte-file-taken-as-history: SQLite takes a file shorter than its header for a new
    database: `history list` and `add` turned a user's 1-byte file into a history, exit 0 (`show`
    too, then exit 2), and the Python readers called it "an SQLite database, but not a memrel
    history". A file that does not begin as an SQLite database is none, whatever its length."""
    (tmp_path / "F").write_bytes(content)
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert "F: not an SQLite database" in r.stderr, r.stderr
    assert (tmp_path / "F").read_bytes() == content
    assert sorted(os.listdir(tmp_path)) == ["F"]


@needs_memrel
def test_a_history_and_a_results_file_given_for_each_other_are_named(tmp_path):
    """c10-history-db-not-told-by-content (arguable): a history given as a results file was
    "malformed JSON at byte 16: a NUL byte" (C++) and "not UTF-8 text" (the report); a results
    file given as --db SQLite's "file is not a database". Each is named, as a trace or a journal
    in the wrong place is."""
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    for command in (["compare", "h.sqlite", HOST_RUN], ["report", "--out", "r", HOST_RUN, "h.sqlite"]):
        r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=300)
        assert r.returncode == 2, (command, r.stderr)
        assert r.stderr.count("\n") == 1, r.stderr
        assert "h.sqlite: an SQLite database (it begins with \"SQLite format 3\")" in r.stderr
        assert "memrel history --db" in r.stderr, r.stderr
    before = open(HOST_RUN, "rb").read()
    for command in (["history", "--db", HOST_RUN, "list"], ["history", "--db", HOST_RUN, "changes"]):
        r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                           timeout=300)
        assert r.returncode == 2, (command, r.stderr)
        assert r.stderr.count("\n") == 1, r.stderr
        assert f"{HOST_RUN}: a JSON document (a results file?), not a history database" in r.stderr
    assert open(HOST_RUN, "rb").read() == before


@needs_memrel
@pytest.mark.parametrize("end", [b"\r", b""], ids=["before-a-row", "at-the-end"])
def test_a_carriage_return_alone_in_an_rmm_log_is_named_on_its_line(tmp_path, end):
    """c7-csv-bare-cr-line-number (arguable): a row ending in a carriage return without a line
    feed was a line break to the importer (the csv module's universal line ends), so the next
    row's fault was "line 3" of a file `wc -l` and `grep -n` count 2 lines in. RMM ends its lines
    with a line feed (CR LF is taken too); a lone CR is named where every line tool puts it."""
    log = (b"Thread,Time,Action,Pointer,Size,Stream\n1,08:09:22.861542,allocate,0x10,1,0x1\r"
           + (b"1,08:09:22.861542,allocate,0x20,BAD,0x1\n" if end else b""))
    (tmp_path / "cr.csv").write_bytes(log)
    r = subprocess.run([MEMREL, "-q", "trace", "import", "cr.csv", "-o", "q.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert "cr.csv: line 2: a carriage return without a line feed" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["cr.csv"]
    # CR LF ends a line as a line feed does.
    (tmp_path / "crlf.csv").write_bytes(log.replace(b"\r", b"\r\n").replace(b"BAD", b"7"))
    r = subprocess.run([MEMREL, "-q", "trace", "import", "crlf.csv", "-o", "ok.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
