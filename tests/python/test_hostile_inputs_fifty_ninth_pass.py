"""What the fifty-ninth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-ninth pass"). Each test fails on the code before its fix."""

import json
import os
import pickle
import sqlite3
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_RUN = os.path.join(HERE, "..", "data", "host-run.json")
HOST_BENCH = os.path.join(HERE, "..", "data", "host-bench.json")


def memrel(tmp_path, *args, **kwargs):
    return subprocess.run([MEMREL, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, **kwargs)


@needs_memrel
@pytest.mark.parametrize("command", [["history", "--db", "hlink", "list"],
                                     ["history", "changes", "--db", "hlink"],
                                     ["report", "--history", "hlink", "--out", "rep"]])
def test_a_users_file_beside_the_file_a_db_link_names_is_kept(tmp_path, command):
    """c1-db-symlink-deletes-journal-file: with --db a symbolic link to h.sqlite, the user's own
    h.sqlite-journal was taken by SQLite (which resolves the link) for a stale journal and
    removed, exit 0: memrel looked for one beside the link's name only."""
    assert memrel(tmp_path, "history", "--db", "h.sqlite", "add", HOST_RUN).returncode == 0
    os.symlink("h.sqlite", tmp_path / "hlink")
    (tmp_path / "h.sqlite-journal").write_text("my notes\n")
    r = memrel(tmp_path, "-q", *command)
    assert r.returncode == 2, r.stderr
    assert "h.sqlite-journal: not an SQLite journal" in r.stderr, r.stderr
    assert (tmp_path / "h.sqlite-journal").read_text() == "my notes\n"


@needs_memrel
def test_a_hash_in_a_compare_heading_is_escaped(tmp_path):
    """c9-markdown-heading-closing-hash: a results file named `r #` made the heading `### r #`,
    whose `#` Markdown reads as the closing sequence."""
    import shutil

    shutil.copy(HOST_RUN, tmp_path / "r #")
    r = memrel(tmp_path, "compare", "r #", "r #", "--markdown", "m.md")
    assert r.returncode == 0, r.stderr
    headings = [line for line in (tmp_path / "m.md").read_text().splitlines()
                if line.startswith("### ")]
    assert headings == ["### r \\#"], headings


@needs_memrel
def test_an_ab_bench_killed_by_a_signal_is_said_so(tmp_path):
    """c8-ab-bench-signal-said-as-exit-empty-reason: a candidate memrel_bench that died of
    SIGSEGV without a word was "failed in round 1 (exit 139):  (LOG)"."""
    import shutil

    shutil.copy(HOST_BENCH, tmp_path / "good.json")
    (tmp_path / "ref.sh").write_text(
        '#!/bin/bash\nfor a in "$@"; do case "$a" in --help) echo "Usage: memrel_bench [options]"; exit 0;; '
        '--benchmark_out=*) out="${a#--benchmark_out=}";; esac; done\n'
        'cp "$(dirname "$0")/good.json" "$out"; exit 0\n')
    (tmp_path / "cand.sh").write_text(
        '#!/bin/bash\nfor a in "$@"; do case "$a" in --help) echo "Usage: memrel_bench [options]"; exit 0;; '
        'esac; done\nkill -SEGV $$\n')
    for name in ("ref.sh", "cand.sh"):
        (tmp_path / name).chmod(0o755)
    r = memrel(tmp_path, "-q", "ab", "-b", "null", "--rounds", "5", "--looks", "1",
               "--reference-bench", tmp_path / "ref.sh", "--candidate-bench", tmp_path / "cand.sh",
               "--out", "abo")
    assert r.returncode == 1, r.stderr
    assert "failed in round 1: rc 139 (killed by SIGSEGV): it printed nothing" in r.stderr, r.stderr


@needs_memrel
def test_a_newline_in_a_report_table_is_written_as_in_the_prose(tmp_path):
    """c9-report-table-newline-as-space (arguable): a newline in a context text showed as `\\n`
    in report.md's prose but as a space in its tables."""
    doc = json.loads(open(HOST_RUN).read())
    doc["context"]["host"] = "LINEONE\nLINETWO"
    (tmp_path / "r.json").write_text(json.dumps(doc))
    r = memrel(tmp_path, "-q", "report", "r.json", "--out", "rep")
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "LINEONE LINETWO" not in text and "LINEONE\\\\nLINETWO" in text


@needs_memrel
def test_a_huge_figure_is_shown_short_in_the_refusal(tmp_path):
    """c4-history-show-huge-figure-300-digits (arguable): 1.7e308 was written as 309 digits and
    `.000000`, a line of 465 characters."""
    assert memrel(tmp_path, "history", "--db", "h.sqlite", "add", HOST_RUN).returncode == 0
    metric = "host-malloc/temp-then-delete:peak_reserved"
    with sqlite3.connect(tmp_path / "h.sqlite") as c:
        c.execute("update figures set value=1.7e308 where metric=?", (metric,))
    c.close()
    r = memrel(tmp_path, "history", "--db", "h.sqlite", "show", metric)
    assert r.returncode == 2, r.stderr
    assert "column value: 1.6999999999999999e+308 is out of range" in r.stderr, r.stderr
    assert len(r.stderr) < 250, r.stderr


@needs_memrel
def test_a_snapshot_of_no_device_is_said_so(tmp_path):
    """c7-snapshot-no-devices-range-0-to-minus-1 (arguable): an empty device_traces was "the
    snapshot has traces for 0 device(s) (0 to -1)"."""
    (tmp_path / "s.pickle").write_bytes(pickle.dumps({"device_traces": [], "segments": []}))
    r = memrel(tmp_path, "trace", "import", "s.pickle", "-o", "t.memtrace")
    assert r.returncode == 2, r.stderr
    assert "device_traces: empty: the snapshot holds no device's trace" in r.stderr, r.stderr
