"""What the fifty-fourth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-fourth pass"). Each test fails on the code before its fix."""

import os
import shutil
import sqlite3
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel
from test_hostile_inputs_thirty_seventh_pass import _chattr, attributes_cleared  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_RUN = os.path.join(HERE, "..", "data", "host-run.json")


@needs_memrel
def test_matplotlibs_font_list_is_never_written_into_the_users_folders(tmp_path):
    """c1-mplconfigdir-fontcache-is-input, c2-mplconfigdir-is-report-out: with MPLCONFIGDIR=d,
    `report d/fontlist-vX.json` overwrote the results file with matplotlib's font list, exit 0;
    with MPLCONFIGDIR=rep, `report --out rep` found the font list in its own folder, exit 2."""
    import matplotlib.font_manager as fm

    name = f"fontlist-v{fm.FontManager.__version__}.json"
    (tmp_path / "d").mkdir()
    results = tmp_path / "d" / name
    shutil.copy(HOST_RUN, results)
    before = results.read_bytes()
    r = subprocess.run([MEMREL, "-q", "report", str(results), "--out", "rep"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, MPLCONFIGDIR=str(tmp_path / "d")))
    assert r.returncode == 0, r.stderr
    assert results.read_bytes() == before
    assert sorted(os.listdir(tmp_path / "d")) == [name]
    r = subprocess.run([MEMREL, "-q", "report", HOST_RUN, "--out", "rep2"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, MPLCONFIGDIR=str(tmp_path / "rep2")))
    assert r.returncode == 0, r.stderr
    assert not [n for n in os.listdir(tmp_path / "rep2") if n.startswith("fontlist")]


@needs_memrel
def test_a_loose_module_is_not_taken_for_one_pip_installed_in_another_folder(tmp_path):
    """c3-pythonpath-loose-otava-runs-in-history-changes: with PYTHONPATH=B:A, A holding an
    otava .dist-info and B a loose otava.py, `history changes` ran B's file: the names pip
    installed were pooled over every folder, not asked of the folder the module came from."""
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    (tmp_path / "A" / "otava-1.0.dist-info").mkdir(parents=True)
    (tmp_path / "A" / "otava-1.0.dist-info" / "RECORD").write_text("otava/__init__.py,,\n")
    (tmp_path / "B").mkdir()
    (tmp_path / "B" / "otava.py").write_text(f"open({str(tmp_path / 'PWNED')!r}, 'w')\n")
    env = dict(os.environ, HOME="/nonexistent", XDG_CACHE_HOME="",
               PYTHONPATH=f"{tmp_path / 'B'}:{tmp_path / 'A'}")
    env.pop("MEMREL_HISTORY_PYTHON", None)
    subprocess.run([MEMREL, "history", "changes", "--db", "h.sqlite"], capture_output=True,
                   text=True, cwd=tmp_path, timeout=120, env=env)
    assert not (tmp_path / "PWNED").exists()


@needs_memrel
def test_a_row_of_non_ascii_blanks_in_an_rmm_log_is_refused_not_skipped(tmp_path):
    """c7-rmm-unicode-blank-row-skipped: a row holding only U+2003 was skipped as a blank line,
    where every field takes ASCII blanks only."""
    (tmp_path / "r.csv").write_text("Thread,Time,Action,Pointer,Size,Stream\n\u2003\n"
                                    "1,08:00:00.000001,allocate,0x10,100,0x0\n", encoding="utf-8")
    r = subprocess.run([MEMREL, "trace", "import", "r.csv", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "line 2" in r.stderr, r.stderr
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
def test_no_python_part_writes_byte_code_beside_memrels_modules(tmp_path):
    """Arguable, fixed after the pass: every Python part (report, trace import, history's change
    points, advise) left `__pycache__` folders beside memrel's own modules, in a tree that a run
    should only read. The build compiles them; a run reads, as with an installed memrel."""
    from test_hostile_inputs_seventeenth_pass import private_copy, run_copy

    copy = private_copy(tmp_path)
    rmm_log = os.path.join(HERE, "..", "..", "benchmarks", "trace-sources", "rmm-pool-convnet.csv")
    for args in (["report", HOST_RUN, "--out", tmp_path / "rep"],
                 ["trace", "import", rmm_log, "-o", tmp_path / "t.memtrace"],
                 ["history", "--db", tmp_path / "h.sqlite", "add", HOST_RUN],
                 ["history", "changes", "--db", tmp_path / "h.sqlite"]):
        run_copy(copy, *args)
    assert (tmp_path / "rep" / "report.md").exists() and (tmp_path / "t.memtrace").exists()
    written = [str(p.relative_to(copy)) for p in (copy / "scripts").rglob("__pycache__")]
    assert written == []


@needs_memrel
def test_a_tmpdir_that_is_the_reports_out_is_named(tmp_path):
    """Arguable, fixed after the pass: with TMPDIR the report's --out, matplotlib's temporary
    folder landed there and the report was refused for a file "no report wrote", TMPDIR unnamed.
    The old report is left whole either way."""
    r = subprocess.run([MEMREL, "-q", "report", HOST_RUN, "--out", "rep"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    before = sorted(p.name for p in (tmp_path / "rep").iterdir())
    for tmpdir in ("rep", "rep/charts"):
        if not (tmp_path / tmpdir).is_dir():
            continue
        r = subprocess.run([MEMREL, "-q", "report", HOST_RUN, "--out", "rep"], capture_output=True,
                           text=True, cwd=tmp_path, timeout=300,
                           env=dict(os.environ, TMPDIR=str(tmp_path / tmpdir)))
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "TMPDIR" in r.stderr and "--out" in r.stderr, r.stderr
        assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == before


@needs_memrel
@pytest.mark.parametrize("command", [["history", "list"], ["history", "changes", "--metric", "x"],
                                     ["report", "--out", "rep"]])
def test_a_wal_history_in_a_folder_that_takes_no_new_file_says_so(tmp_path, attributes_cleared,
                                                                    command):
    """Arguable, fixed after the pass: a history in WAL mode in a folder that takes no new file
    (chattr +i) said only SQLite's "unable to open database file": its -wal and -shm cannot be
    made. Both readers (C++ and Python) now name the mode, the folder and the ways out."""
    (tmp_path / "d").mkdir()
    db = tmp_path / "d" / "h.sqlite"
    subprocess.run([MEMREL, "history", "--db", db, "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA journal_mode=wal").fetchone()[0] == "wal"
    c.close()
    before = db.read_bytes()
    attributes_cleared.append(tmp_path / "d")
    _chattr("+i", tmp_path / "d")
    args = [*command[:1], "--history" if command[0] == "report" else "--db", "d/h.sqlite",
            *command[1:]]
    r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "d/h.sqlite: a history in WAL mode" in r.stderr, r.stderr
    assert "its folder d is immutable (chattr +i)" in r.stderr, r.stderr
    assert db.read_bytes() == before and sorted(os.listdir(tmp_path / "d")) == ["h.sqlite"]
