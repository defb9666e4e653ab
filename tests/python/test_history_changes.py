"""scripts/memrel_history (memrel history changes): what it refuses, and that it says so when
Apache Otava is missing. The change points themselves are tested end to end, through the memrel
binary, in tests/cli/history_test.cpp."""

import os
import sqlite3
import subprocess
import sys

import pytest

from conftest import SCRIPTS

OTAVA_PYTHON = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                            "memrel", "otava", "bin", "python")
APPLICATION_ID = 0x6D656D72


def changes(python, *args):
    env = dict(os.environ, PYTHONPATH=SCRIPTS)
    return subprocess.run([python, "-m", "memrel_history", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def make_db(path, application_id, version):
    """An SQLite file with the marks of a memrel history and the columns `changes` reads."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (id, started, source, machine_id, memrel_commit)")
    db.execute("CREATE TABLE figures (run_id, metric, value)")
    db.execute(f"PRAGMA application_id = {application_id}")
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


@pytest.mark.parametrize("case,what", [
    ("absent", "no history database here"),
    ("other", "not a memrel history"),
    ("newer", "written by a newer memrel"),
    ("text", "not an SQLite database"),
])
def test_unusable_databases_exit_2_with_one_line(tmp_path, case, what):
    # Checked before Otava is imported: any python3 will do.
    path = str(tmp_path / "h.sqlite")
    if case == "other":
        make_db(path, 0, 0)
    elif case == "newer":
        make_db(path, APPLICATION_ID, 99)
    elif case == "text":
        with open(path, "w", encoding="utf-8") as f:
            f.write("hello, not SQLite\n" * 100)
    r = changes(sys.executable, "--db", path)
    assert r.returncode == 2, r.stderr
    assert what in r.stderr and path in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["no\nsuch.sqlite", "tab\there.sqlite", "esc\x1b.sqlite"])
def test_a_control_character_in_the_db_path_keeps_the_error_one_line(tmp_path, name):
    # m-ctl-hchg: the newline was printed raw, the error took two lines.
    r = changes(sys.executable, "--db", str(tmp_path / name))
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no history database here" in r.stderr and repr(name)[1:-1] in r.stderr, r.stderr


def test_a_bad_option_exits_2(tmp_path):
    r = changes(sys.executable, "--db", str(tmp_path / "h.sqlite"), "--window", "many")
    assert r.returncode == 2


def test_without_otava_it_says_how_to_install_it(tmp_path):
    probe = subprocess.run([sys.executable, "-c", "import otava.analysis"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip(f"{sys.executable} has Otava: the missing case cannot be shown with it")
    path = str(tmp_path / "h.sqlite")
    make_db(path, APPLICATION_ID, 1)  # a memrel history (schema 1) without its tables
    r = changes(sys.executable, "--db", path)
    assert r.returncode == 4
    assert "Apache Otava" in r.stderr and "scripts/install-deps" in r.stderr


def test_the_otava_environment_is_installed():
    # scripts/install-deps puts it there; memrel history changes uses it by default.
    assert os.access(OTAVA_PYTHON, os.X_OK), f"{OTAVA_PYTHON} missing: run scripts/install-deps"


def test_json_lists_the_planted_step_with_the_run_before_it(tmp_path):
    """--json (what memrel report --history reads): 32 synthetic nights added by `memrel history
    add` (history_nights.py), a step of +50 % at night 20: listed at that night's run, the run
    before it naming the commit that opens the range."""
    import json

    import history_nights as nights
    MEMREL = nights.memrel_binary()
    if MEMREL is None or not os.access(OTAVA_PYTHON, os.X_OK):
        pytest.skip("needs a memrel binary under build/ (or MEMREL_BINARY) and scripts/install-deps' Otava")
    db = nights.build_history(MEMREL, str(tmp_path))
    r = changes(OTAVA_PYTHON, "--db", db, "--json", "--metric", "host-malloc/fragmentation:peak_reserved")
    assert r.returncode == 0, r.stderr
    [point] = json.loads(r.stdout)
    assert point["started"].startswith("2026-11-21") and point["previous_started"].startswith("2026-11-20")
    assert point["commit"] == nights.commit_of(nights.STEP)
    assert point["previous_commit"] == nights.commit_of(nights.STEP - 1)
    assert point["run_id"] == point["previous_run_id"] + 1
    assert point["after"] / point["before"] == pytest.approx(1.5, rel=0.01)
