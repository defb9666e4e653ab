"""What the tenth adversarial pass of issue 23 found (docs/inputs.md, "Tenth pass"): each test
fails on the code before its fix."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from test_hostile_inputs import (MEMREL, RMM_LOG, _journal_lines, interrupted_run, memrel, needs_memrel,
                                 private_copy, refused, scripts_module, shared_table)

BACKEND_FILE = os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")
PLUGIN = os.path.join(os.path.dirname(MEMREL or ""), "libmemrel_pluggable_host_example.so")


def backend_file(path, **fields):
    """The host example's backend file with its library by absolute path and FIELDS changed."""
    with open(BACKEND_FILE, encoding="utf-8") as f:
        data = json.load(f)
    data.update(library=PLUGIN, **fields)
    path.write_text(json.dumps(data))
    return path


# --- Markup: text from a file is text in every Markdown memrel writes ------------------------------

def test_the_python_markdown_text_is_the_cpp_one():
    """tests/data/markdown_texts.json, checked against gate/format.cpp's markdown_cell too
    (output_files_test.cpp): c9-md-backslash-pipe-*, c9-md-emphasis-compare."""
    markdown_inline = scripts_module("memrel_outputs.markdown_text").markdown_inline
    table = shared_table("markdown_texts.json")
    assert len(table) >= 10
    for hex_bytes, text in table:
        assert markdown_inline(os.fsdecode(bytes.fromhex(hex_bytes))) == text, hex_bytes


@pytest.mark.parametrize("line, text", [
    ("# x", "\\# x"), ("- x", "\\- x"), ("+ x", "\\+ x"), ("---", "\\---"), ("1. x", "1\\. x"),
    ("12) x", "12\\) x"), ("1.00 MiB", "1.00 MiB"), ("    # x", "\\# x"), ("> q", "&gt; q"),
    ("a\n# b", "a\\\\n# b"),
])
def test_a_line_of_text_starts_no_block(line, text):
    """A paragraph or a bullet that starts with a name: `# x` made a heading, `1. x` a list."""
    markdown_line = scripts_module("memrel_outputs.markdown_text").markdown_line
    assert markdown_line(line) == text


@needs_memrel
def test_markup_from_every_field_of_a_result_is_text_in_report_md(tmp_path):
    """c9-backend-desc-md-image, c9-cell-reason-md-image, c9-host-name-md-image,
    c9-workload-path-md-image, c9-md-backslash-pipe-report: a backend's description, a cell's
    reason, the host's name and a workload's file reached report.md as image and link markup
    (a viewer fetched http://e.invalid), a `\\|` split a table's row."""
    markup = "![i](http://e.invalid/x.png) [c](javascript:alert(1)) **b** a\\|b"
    bk = backend_file(tmp_path / "bk.json", description=markup)
    r = memrel("-q", "run", "-b", str(bk), "-w", "temp-then-delete", "-o", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    results = json.loads((tmp_path / "r.json").read_text())
    results["context"]["host"] = markup
    cell = results["cells"][0]
    cell["workload"] = "w\\|x*y*"
    cell["status"], cell["reason"] = "error", markup
    (tmp_path / "r2.json").write_text(json.dumps(results))
    r = memrel("-q", "report", "--out", "rep", "--jobs", "1", "r2.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "rep" / "report.md").read_text()
    for raw in ("![i](", "[c](", "**b**", "*y*"):
        assert raw not in text, raw
    assert "!\\[i\\](http\\://e.invalid/x.png)" in text  # no bare link either (pass 52)
    assert_rows_keep_their_cells(text, "w\\\\\\|x")


def assert_rows_keep_their_cells(text, marker):
    """Each table row holding MARKER has as many cell boundaries as its table's separator line,
    counted as GitHub's Markdown does (a backslash escapes the character after it)."""
    lines, seen = text.splitlines(), 0
    for k, line in enumerate(lines):
        if marker not in line or not line.startswith("| "):
            continue
        separator = next(lines[j] for j in range(k, -1, -1) if re.fullmatch(r"\|[-:|]+\|", lines[j]))
        assert re.sub(r"\\.", "", line).count("|") == separator.count("|"), line
        seen += 1
    assert seen, f"no row holding {marker}"


@needs_memrel
def test_compare_markdown_writes_names_and_paths_as_text(tmp_path):
    """c9-compare-file-name-newline-md, c9-md-emphasis-compare, c9-md-backslash-pipe-compare: a
    newline in a baseline's file name started a raw `<script>` line; `**B**` was bold."""
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    results = json.loads((tmp_path / "b.json").read_text())
    results["cells"][0]["workload"] = "x**B**~~s~~a\\|b"
    named = "n\n<script>alert(1)\n.json"
    (tmp_path / named).write_text(json.dumps(results))
    (tmp_path / "c.json").write_text(json.dumps(results))
    r = memrel("compare", named, "c.json", "--markdown", "m.md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "m.md").read_text()
    assert "<script>" not in text and "**B**" not in text and "~~s~~" not in text
    assert "x\\*\\*B\\*\\*\\~\\~s\\~\\~a\\\\\\|b" in text
    assert_rows_keep_their_cells(text, "a\\\\\\|b")


# --- History: what `add` writes, its readers read ------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("field", ["workload", "backend"])
def test_history_add_refuses_a_name_its_readers_would_refuse(tmp_path, field):
    """c9-history-add-ctrl-name-poisons-db, c9-history-add-ctrl-backend-poisons-db: a results
    file whose workload or backend name held an escape sequence went in, exit 0; from then on
    `history list`, `show` and `changes` refused the whole database."""
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert memrel("-q", "history", "--db", "h.sqlite", "add", "b.json", cwd=tmp_path).returncode == 0
    results = json.loads((tmp_path / "b.json").read_text())
    for cell in results["cells"]:
        cell[field] = "X\x1b[31mRED\u202e"
    (tmp_path / "esc.json").write_text(json.dumps(results))
    before = (tmp_path / "h.sqlite").read_bytes()
    line = refused(memrel("-q", "history", "--db", "h.sqlite", "add", "esc.json", cwd=tmp_path),
                   "esc.json", "control, invisible, text-direction or noncharacter code point")
    assert "\x1b" not in line and "\u202e" not in line
    assert (tmp_path / "h.sqlite").read_bytes() == before
    for command in (["list"], ["changes"]):
        r = memrel("-q", "history", "--db", "h.sqlite", *command, cwd=tmp_path)
        assert r.returncode == 0, r.stderr


def history_with_a_run(tmp_path):
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("-q", "history", "--db", "h.sqlite", "add", "b.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("kind", ["fifo", "folder", "link"])
@pytest.mark.parametrize("command", [["add", "b.json"], ["list"], ["changes"], ["report"],
                                     ["add to a new history", "b.json"]])
def test_sqlites_journal_beside_a_history_is_a_regular_file(tmp_path, kind, command):
    """c2-history-sqlite-journal-*: a FIFO at h.sqlite-journal hung every history command in
    open() (and `report --history`); a folder there was a "disk I/O error", exit 4."""
    if command[0] == "add to a new history":
        r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
                   cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        command = ["add", "b.json"]
    else:
        history_with_a_run(tmp_path)
    before = (tmp_path / "h.sqlite").read_bytes() if (tmp_path / "h.sqlite").exists() else None
    journal = tmp_path / "h.sqlite-journal"
    {"fifo": lambda: os.mkfifo(journal), "folder": journal.mkdir,
     "link": lambda: journal.symlink_to(tmp_path / "elsewhere")}[kind]()
    if command == ["report"]:
        args = ["-q", "report", "--out", "rep", "--history", "h.sqlite", "b.json"]
    else:
        args = ["-q", "history", "--db", "h.sqlite", *command]
    r = subprocess.run([MEMREL, *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    refused(r, "h.sqlite-journal", "not a regular file")
    assert journal.is_symlink() if kind == "link" else journal.exists()
    assert not (tmp_path / "elsewhere").exists()
    if before is None:
        assert not (tmp_path / "h.sqlite").exists()
    else:
        assert (tmp_path / "h.sqlite").read_bytes() == before


# --- Code from the working folder --------------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("variable", ["XDG_CACHE_HOME", "HOME"])
@pytest.mark.parametrize("command", ["changes", "report"])
def test_a_relative_cache_folder_names_no_otava_to_run(tmp_path, variable, command):
    """c3-otava-venv-home-dot-*, c3-otava-venv-xdg-dot-*: XDG_CACHE_HOME=. or HOME=. made
    `history changes` and `report --history` run ./memrel/otava/bin/python (or
    ./.cache/memrel/...), a program of the working folder. The XDG specification says a relative
    path there is to be ignored."""
    history_with_a_run(tmp_path)
    work = tmp_path / "work"
    below = "memrel/otava/bin" if variable == "XDG_CACHE_HOME" else ".cache/memrel/otava/bin"
    (work / below).mkdir(parents=True)
    planted = work / below / "python"
    planted.write_text(f"#!/bin/sh\ntouch {tmp_path}/ran\nexec python3 \"$@\"\n")
    planted.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "MEMREL_HISTORY_PYTHON")}
    env[variable] = "."
    args = (["history", "--db", "../h.sqlite", "changes"] if command == "changes"
            else ["report", "--out", "../rep", "--history", "../h.sqlite", "../b.json"])
    subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=work, env=env,
                   timeout=300)
    assert not (tmp_path / "ran").exists()


# --- Failures that are not the allocator's ------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("tmpdir", ["/nonexistent", "/dev/full", "/etc/passwd"])
def test_a_tmpdir_that_takes_no_file_leaves_no_journal(tmp_path, tmpdir):
    """c8-run-tmpdir-bad-leaves-journal, c8-tmp-*-run: exit 4 at the first cell, and a journal
    of no cell left behind, which the next run (TMPDIR fixed) refused as an interrupted run."""
    args = ["-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "out.json"]
    r = memrel(*args, env={"TMPDIR": tmpdir}, cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "TMPDIR" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == []
    r = memrel(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr


# --- Outputs that are not regular files: mount points ---------------------------------------------

def in_a_private_mount_namespace(script, tmp_path):
    """Runs a shell script under `unshare -m` (its bind mounts vanish with it); skips the test
    where no mount namespace can be made (not root, a chroot)."""
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    if r.returncode == 77 or (r.returncode == 1 and r.stderr.startswith("unshare: ")):
        pytest.skip(f"no private mount namespace here: {r.stderr.strip()}")
    return r


@needs_memrel
def test_report_out_never_removes_through_a_mount_point(tmp_path):
    """c2-report-replace-deletes-through-mount: `report --out rep` over an earlier report whose
    folder held a bind mount removed the files of the mounted folder, outside the report."""
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert memrel("-q", "report", "--out", "rep", "--jobs", "1", "b.json",
                  cwd=tmp_path).returncode == 0
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "gold.txt").write_text("gold")
    (tmp_path / "rep" / "sub").mkdir()
    r = in_a_private_mount_namespace(
        f"mount --bind precious rep/sub || exit 77; {MEMREL} -q report --out rep --jobs 1 b.json",
        tmp_path)
    refused(r, "rep", "holds the mount point", "unmount it")
    assert (tmp_path / "precious" / "gold.txt").read_text() == "gold"
    assert not [n for n in os.listdir(tmp_path) if n.startswith("rep.")]


@needs_memrel
@pytest.mark.parametrize("writer", ["compare", "run", "trace"])
def test_an_output_that_is_a_mount_point_is_refused_before_the_work(tmp_path, writer):
    """c2-output-is-mount-point: a file bind-mounted at the output failed at the rename (EBUSY)
    with exit 4, "internal error", after all the work; `trace import` said exit 2."""
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (tmp_path / "other").write_text("other")
    (tmp_path / "out.md").write_text("")
    command = {"compare": "compare b.json b.json --markdown out.md",
               "run": "-q run -b host-malloc -w temp-then-delete -o out.md",
               "trace": f"trace import {RMM_LOG} -o out.md"}[writer]
    r = in_a_private_mount_namespace(f"mount --bind other out.md || exit 77; {MEMREL} {command}",
                                     tmp_path)
    refused(r, "out.md", "is a mount point")
    assert (tmp_path / "other").read_text() == "other"


# --- An output that is an input: the folders every run reads ------------------------------------

WORKLOAD = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")


@needs_memrel
@pytest.mark.parametrize("command", [
    ["compare", "b.json", "b.json", "--json", "wd/v.json"],
    ["compare", "b.json", "b.json", "--summary", "bd/s.json"],
    ["cell", "--backend", "host-malloc", "--workload", WORKLOAD, "--out", "wd/cell.json"],
    ["history", "--db", "wd/h.json", "add", "b.json"],
    ["bench", "-b", "host-malloc", "--quick", "-o", "bd"],
    ["advise", RMM_LOG, "--json", "wd/a.json", "--out", "adv"],
    ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "wd/r.memtrace"],
])
def test_no_writer_puts_a_file_the_workloads_or_backends_folder_reads_there(tmp_path, command):
    """c1-*-into-workloads-dir, c1-*-into-backends-dir: `run -o` and `merge -o` refused a .json
    there, every other writer wrote one, exit 0, and every later run of the folder failed on it."""
    (tmp_path / "wd").mkdir()
    (tmp_path / "bd").mkdir()
    shutil.copy(WORKLOAD, tmp_path / "wd")
    backend_file(tmp_path / "bd" / "example.json")
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    folders = ["--workloads-dir", "wd", "--backends-dir", "bd"]
    before = sorted(os.listdir(tmp_path / "wd")), sorted(os.listdir(tmp_path / "bd"))
    refused(memrel(*folders, *command, cwd=tmp_path, timeout=300), "every memrel run")
    assert (sorted(os.listdir(tmp_path / "wd")), sorted(os.listdir(tmp_path / "bd"))) == before
    assert memrel(*folders, "-q", "run", "-o", "all.json", cwd=tmp_path).returncode == 0


@needs_memrel
def test_a_history_named_json_in_a_folder_it_adds_is_refused(tmp_path):
    """c1-history-db-json-in-added-folder: `history --db hd/h.json add hd` made hd/h.json, exit 0,
    and every later `history add hd` read the database as a results file."""
    (tmp_path / "hd").mkdir()
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "hd/b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    refused(memrel("-q", "history", "--db", "hd/h.json", "add", "hd", cwd=tmp_path),
            "--db hd/h.json", "added")
    assert sorted(os.listdir(tmp_path / "hd")) == ["b.json"]


# --- Leftovers: a refused command makes no folder ------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("command", [
    ["run", "-b", "nope", "-w", "temp-then-delete", "-o", "deep1/x/r.json"],
    ["run", "-b", "host-malloc", "-w", "temp-then-delete,temp-then-delete", "-o", "deep2/r.json"],
    ["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "nd1/"],
    ["merge", "s.json", "-o", "nd2/"],
    ["bench", "-b", "host-malloc", "--quick", "-o", "za/bo", "--logs", "zb/lg", "--filter", "xx"],
])
def test_a_refused_command_leaves_no_folder_it_made(tmp_path, command):
    """c9-run-refused-leaves-folders, c9-trailing-slash-output-makes-folder,
    c9-bench-refused-leaves-folders: exit 2, and -o's new folders (and bench's log) were left;
    `-o nd1/` made nd1, then refused it as a folder."""
    (tmp_path / "s.json").write_text("{}")
    before = sorted(os.listdir(tmp_path))
    refused(memrel("-q", *command, cwd=tmp_path, timeout=300))
    assert sorted(os.listdir(tmp_path)) == before


@needs_memrel
@pytest.mark.parametrize("python", ["/bin/echo", "/bin/ls", "/nonexistent/python"])
def test_a_history_python_that_is_not_python_stops_the_report_with_exit_4(tmp_path, python):
    """c8-report-history-python-*: MEMREL_HISTORY_PYTHON=/bin/echo was "internal error:
    JSONDecodeError", /bin/ls an exit 2 that blamed the database."""
    history_with_a_run(tmp_path)
    r = memrel("-q", "report", "--out", "rep", "--history", "h.sqlite", "b.json",
               env={"MEMREL_HISTORY_PYTHON": python}, cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"MEMREL_HISTORY_PYTHON ({python})" in lines[0], r.stderr
    assert "internal error" not in lines[0]
    assert not (tmp_path / "rep").exists()


@needs_memrel
def test_ab_of_backends_all_unavailable_is_one_line(tmp_path):
    """c10-ab-all-unavailable-two-lines: exit 2 with "unavailable here: ..." on a line of its own
    before the error, even with -q."""
    if os.path.exists("/dev/nvidiactl"):
        pytest.skip("a GPU is here: cuda-malloc is available")
    line = refused(memrel("-q", "ab", "-b", "cuda-malloc", "--quick", "--rounds", "5", "--looks",
                          "1", "--out", "abq", cwd=tmp_path, timeout=300),
                   "nothing to compare", "cuda-malloc")
    assert "unavailable" in line


@needs_memrel
def test_advise_stopped_while_it_draws_its_page_can_be_resumed(tmp_path):
    """c10-advise-term-in-page-then-resume: SIGTERM while the page was drawn was exit 143 and
    "run it again with --resume", but the journal was gone already: --resume was refused."""
    trace = os.path.join(ROOT, "benchmarks", "workloads", "trace-transformer-varying-length.memtrace")
    wrapper = tmp_path / "python"
    wrapper.write_text(f"#!/bin/sh\ncase \"$*\" in *memrel_advise*) touch {tmp_path}/drawing; "
                       f"sleep 60;; esac\nexec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    args = [MEMREL, "-q", "advise", trace, "-b", "host-malloc,host-malloc-retain", "--out", "adv"]
    p = subprocess.Popen(args, cwd=tmp_path, env=dict(os.environ, MEMREL_PYTHON=str(wrapper)),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(1200):
            if (tmp_path / "drawing").exists() or p.poll() is not None:
                break
            time.sleep(0.05)
        assert (tmp_path / "drawing").exists(), p.stderr.read() if p.poll() is not None else ""
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=60) == 143
        assert "--resume" in p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert (tmp_path / "adv" / "results.json.journal").exists()
    r = subprocess.run([*args, "--resume"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "adv" / "advise.html").exists()
    assert not (tmp_path / "adv" / "results.json.journal").exists()


@needs_memrel
def test_report_history_runs_nothing_from_the_working_folder(tmp_path):
    """c3-report-history-otava-m-cwd: the report started the history's interpreter as
    `python -m memrel_history` in the working folder, so ./memrel_history/ ran."""
    history_with_a_run(tmp_path)
    work = tmp_path / "work"
    (work / "memrel_history").mkdir(parents=True)
    for name in ("__init__.py", "__main__.py"):
        (work / "memrel_history" / name).write_text(f"open({str(tmp_path / 'ran')!r}, 'w')\n")
    r = subprocess.run([MEMREL, "-q", "report", "--out", "../rep", "--history", "../h.sqlite",
                        "../b.json"], capture_output=True, text=True, cwd=work, timeout=300,
                       env=dict(os.environ, MEMREL_HISTORY_PYTHON=sys.executable))
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "ran").exists()


@needs_memrel
def test_the_frameworks_probe_runs_no_pth_file_of_the_user_site(tmp_path):
    """c3-list-framework-probe-usersite-pth: the xla and cupy families' availability probe added
    the user's site-packages with site.addsitedir, which ran its .pth files during `memrel list`."""
    version = "python%d.%d" % sys.version_info[:2]
    site = tmp_path / "home" / ".local" / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    (site / "evil.pth").write_text(f"import os; open({str(tmp_path / 'ran')!r}, 'w')\n")
    r = subprocess.run([MEMREL, "list"], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, HOME=str(tmp_path / "home"),
                                MEMREL_PYTHON=sys.executable))
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "ran").exists()


# --- A journal: every field of its header of its type ----------------------------------------------

@needs_memrel
@pytest.mark.parametrize("field, value", [("schema", 1), ("context", [1]), ("run", "x"),
                                          ("context.started", 5), ("context.resumed", [1])])
def test_a_journal_header_field_of_the_wrong_type_is_refused_with_exit_2(tmp_path, field, value):
    """c5-journal-schema-int, c5-journal-ctx-context-not-object, c5-advise-journal-schema-int:
    `"schema": 1` or `"context": [1]` reached the JSON library's type error, exit 4."""
    args, out, journal = interrupted_run(tmp_path)
    header, record = _journal_lines(journal)
    if "." in field:
        header["context"][field.split(".")[1]] = value
    else:
        header[field] = value
    journal.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n")
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60)
    # A header of another schema is no journal of memrel's at all (the forty-ninth pass).
    refused(r, str(journal), "is not a journal memrel wrote" if field == "schema" else "line 1")
    assert not out.exists()


# --- An interpreter older than memrel's Python parts ---------------------------------------------

OLD_PYTHONS = [p for p in (os.path.expanduser(f"~/.pyenv/versions/{v}/bin/python{v[:3]}")
                           for v in ("3.6.15", "3.7.16", "3.8.18")) if os.access(p, os.X_OK)]


@needs_memrel
@pytest.mark.skipif(not OLD_PYTHONS, reason="no Python 3.6-3.8 here (pyenv) to stand for an old one")
@pytest.mark.parametrize("command", [["trace", "import", "-o", "t.memtrace", RMM_LOG],
                                     ["report", "--out", "rep", "r.json"]])
def test_an_old_python_is_said_in_one_line_with_exit_4(tmp_path, command):
    """c8-memrel-python-old-traceback, c8-memrel-python-38-report-unclear: Python 3.6 or 3.7 as
    MEMREL_PYTHON printed a traceback of 15 lines, 3.8 an AttributeError."""
    (tmp_path / "r.json").write_text("{}")
    for python in OLD_PYTHONS:
        r = memrel("-q", *command, env={"MEMREL_PYTHON": python}, cwd=tmp_path)
        assert r.returncode == 4, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "older than the 3.9" in lines[0], r.stderr
        assert sorted(os.listdir(tmp_path)) == ["r.json"]


# --- A memory limit is the machine's, said in one line ---------------------------------------------

def under_ulimit_v(kib, args, cwd, timeout=60):
    return subprocess.run(["sh", "-c", f'ulimit -v {kib} && exec "$@"', "sh", MEMREL, *args],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


@needs_memrel
@pytest.mark.parametrize("kib, command", [
    (100000, ["-q", "trace", "import", "-o", "u.memtrace", RMM_LOG]),
    (200000, ["-q", "report", "--out", "rep", "b.json"]),
    (100000, ["-q", "history", "--db", "h.sqlite", "changes"]),
])
def test_a_memory_limit_is_one_line_with_exit_4_and_no_hang(tmp_path, kib, command):
    """c8-history-changes-ulimit-v-hang, c8-import-ulimit-v-openblas, c8-report-ulimit-v-brokenpool:
    under `ulimit -v`, numpy's OpenBLAS retried its buffers for ever (`history changes` hung) or
    printed its own line beside memrel's "exited 1" or "internal error: BrokenProcessPool"."""
    history_with_a_run(tmp_path)
    r = under_ulimit_v(kib, command, tmp_path)
    if r.returncode == 0:
        pytest.skip(f"{command[1]} fits in {kib} KiB here")
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "memory" in lines[0] or "Otava" in lines[0], lines[0]
    assert "internal error" not in lines[0]


# --- The importer writes no trace the loader refuses ---------------------------------------------

@needs_memrel
def test_a_trace_whose_live_bytes_pass_2_to_the_64_is_not_written(tmp_path):
    """c7-rmm-peak-over-2e64-loader-refuses: 65537 live blocks of 2^48 bytes, each in range, made
    a header peak past 2^64 - 1: written, exit 0, then refused by validate and every run."""
    rows = ["Thread,Time,Action,Pointer,Size,Stream"]
    rows += [f"1,10:00:00.000001,allocate,0x{0x1000 + i * 0x10:x},{2 ** 48},0x0" for i in range(65537)]
    (tmp_path / "log.csv").write_text("\n".join(rows) + "\n")
    refused(memrel("-q", "trace", "import", "-o", "t.memtrace", "log.csv", cwd=tmp_path, timeout=300),
            "log.csv", "2^53")
    assert not (tmp_path / "t.memtrace").exists()


def test_a_recorded_reserved_curve_past_2_to_the_64_is_refused():
    """c7-pk-reserved-over-2e64-loader-refuses: the recording allocator's reserved curve past
    2^64 - 1 was written as it was."""
    builder = scripts_module("memrel_trace.builder").TraceBuilder()
    with pytest.raises(OverflowError, match="2\\^53"):
        builder.finish([], final_reserved=1 << 64)


@needs_memrel
def test_marks_repeated_by_reference_are_capped_as_they_come(tmp_path):
    """c7-pk-repeated-oom-marks-memory: a snapshot repeating one `oom` entry by reference held
    650 bytes per mark until the header's cap was checked at the end: 12 MB of pickle took 4 GB,
    exit 4 under a memory limit. Refused as the marks pass what a header holds, in bounded memory."""
    import pickle

    oom = {"action": "oom", "addr": 0, "size": 512, "stream": 0, "device_free": 100}
    alloc = {"action": "alloc", "addr": 4096, "size": 512, "stream": 0}
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(
        {"device_traces": [[alloc] + [oom] * 3_000_000], "segments": []}, protocol=4))
    r = under_ulimit_v(1_200_000, ["-q", "trace", "import", "-o", "t.memtrace", "s.pickle"], tmp_path,
                       timeout=120)
    refused(r, "s.pickle", "marks")
    assert not (tmp_path / "t.memtrace").exists()


# --- Duplicates: a backend's name splits no subject and makes no label ---------------------------

@needs_memrel
@pytest.mark.parametrize("backend", ["host-malloc/x", "host-malloc #2"])
@pytest.mark.parametrize("reader", ["compare", "history", "report"])
def test_a_results_backend_name_holding_a_separator_is_refused(tmp_path, backend, reader):
    """c6-subject-key-ambiguous-slash, c6-report-relabel-collides-with-crafted-name: backend
    `host-malloc/x` on `y` was the cell `host-malloc` on `x/y` to compare and the history; a
    backend named `host-malloc #2` shared a second run's host-malloc page in the report."""
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "b.json",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    results = json.loads((tmp_path / "b.json").read_text())
    for cell in results["cells"]:
        cell["backend"] = backend
    (tmp_path / "x.json").write_text(json.dumps(results))
    args = {"compare": ["compare", "b.json", "x.json"],
            "history": ["history", "--db", "h.sqlite", "add", "x.json"],
            "report": ["report", "--out", "rep", "--jobs", "1", "b.json", "x.json"]}[reader]
    refused(memrel("-q", *args, cwd=tmp_path), "x.json", "backend")
    assert sorted(os.listdir(tmp_path)) == ["b.json", "x.json"]


@needs_memrel
def test_a_resume_under_another_allocator_environment_is_refused(tmp_path):
    """c5-resume-allocator-env-changed: a --resume under another MALLOC_ARENA_MAX went on, exit 0,
    and one results file held cells run under two settings."""
    args, out, journal = interrupted_run(tmp_path)
    before = journal.read_bytes()
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MALLOC_ARENA_MAX="1"))
    refused(r, str(journal), "allocator_environment")
    assert journal.read_bytes() == before and not out.exists()


@needs_memrel
def test_a_host_oom_under_an_address_space_limit_is_the_machines(tmp_path):
    """c8-run-ulimit-v-recorded-as-oom: under `ulimit -v`, host-malloc's failed malloc was
    recorded as the allocator's "oom", exit 0, with no word of the limit."""
    r = under_ulimit_v(250000, ["-q", "run", "-b", "host-malloc", "-w", "paired-large", "-o",
                                "r.json"], tmp_path, timeout=120)
    cell = json.loads((tmp_path / "r.json").read_text())["cells"][0]
    if cell["status"] == "ok":
        pytest.skip("paired-large fits in 250000 KiB here")
    assert r.returncode == 3, r.stderr
    assert cell["status"] == "error" and "address-space limit" in cell["reason"], cell["reason"]


@needs_memrel
def test_a_name_holding_a_line_separator_is_refused(tmp_path):
    """c9-u2028-name-history-list: a workload named with U+2028 ran, and `history list` printed
    its name on two lines (tests/data/name_characters.json holds the rule's other rows)."""
    workload = json.loads(open(WORKLOAD, encoding="utf-8").read())
    workload["name"] = "ls\u2028sep"
    (tmp_path / "w.json").write_text(json.dumps(workload))
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "./w.json", "-o", "r.json", cwd=tmp_path),
            "w.json", "\\u2028")


# --- Found by the eleventh adversarial pass --------------------------------------------------------

@needs_memrel
def test_two_outputs_that_are_hard_links_of_one_file_are_refused(tmp_path):
    """c1-compare-json-summary-hardlink-alias: `--json a --summary b` with b a hard link of a was
    taken, exit 0 (the same pair spelled `x` and `./x` was refused)."""
    (tmp_path / "a").write_text("")
    os.link(tmp_path / "a", tmp_path / "b")
    r = memrel("compare", str(os.path.join(ROOT, "results", "baselines", "host")),
               str(os.path.join(ROOT, "results", "baselines", "host")), "--json", "a",
               "--summary", "b", cwd=tmp_path)
    refused(r, "--json a", "the same file as --summary")
    assert os.stat(tmp_path / "a").st_ino == os.stat(tmp_path / "b").st_ino


@needs_memrel
def test_an_output_beside_a_folders_inputs_is_taken_every_time_alike(tmp_path):
    """c1-compare-folder-output-refused-only-second-time, c1-history-add-folder-holding-db:
    `compare b c --summary c/s.md` and `history --db d/h.sqlite add d` were taken once and refused
    the next time, as "a file of the input folder": a folder stands for its *.json only."""
    for folder in ("b", "c"):
        (tmp_path / folder).mkdir()
        r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                   f"{folder}/run.json", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    for _ in range(2):
        r = memrel("compare", "b", "c", "--summary", "c/s.md", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        r = memrel("-q", "history", "--db", "c/h.sqlite", "add", "c", cwd=tmp_path)
        assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-q", "-b", "null", "-w", "temp-then-delete", "-o",
                                      "{scripts}/json.py"],
                                     ["trace", "import", RMM_LOG, "-o", "{scripts}/csv.py"],
                                     ["report", "--out", "{scripts}/rep", "{results}"]])
def test_no_new_output_goes_into_memrels_own_code(tmp_path, command):
    """c1-mkcopy-*-new-*: `run -o scripts/json.py` (a file not there yet) was taken, exit 0, and
    from then on every Python part imported it for the standard `json`, with a traceback. A
    private copy of memrel stands for the installed one."""
    copy = private_copy(tmp_path)
    results = os.path.join(ROOT, "results", "baselines", "host", "suite.json")
    args = [a.format(scripts=copy / "scripts", results=results) for a in command]
    def listing():
        return sorted(n for n in os.listdir(copy / "scripts") if n != "__pycache__")

    before = listing()
    r = subprocess.run([str(copy / "build" / "ci" / "memrel"), *args], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    line = refused(r, str(copy / "scripts"))
    assert "memrel's own" in line or "a file memrel runs" in line, line
    assert listing() == before


@needs_memrel
@pytest.mark.parametrize("device", ["1024", str(2 ** 53 + 1), str(2 ** 64)])
def test_a_trace_device_past_any_cuda_index_is_refused(tmp_path, device):
    """c7-import-device-*: `trace import --device 2^64` wrote a trace every run refused; 2^53+1 to
    2^63 were read back (wrapped) and the cell crashed as if the allocator had."""
    refused(memrel("-q", "trace", "import", RMM_LOG, "-o", "t.memtrace", "--device", device,
                   cwd=tmp_path), "--device", "0 to 1023")
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("variable, value", [("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=0"),
                                             ("MALLOC_TRIM_THRESHOLD_", "0"),
                                             ("MALLOC_MMAP_THRESHOLD_", "4096")])
def test_a_resume_under_other_glibc_malloc_settings_is_refused(tmp_path, variable, value):
    """c5-resume-changed-env-*: glibc's tunables and MALLOC_*_ variables (release effectiveness
    0.03 against 0.95 on host-malloc) were neither recorded nor compared by --resume."""
    args, out, journal = interrupted_run(tmp_path)
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **{variable: value}))
    refused(r, str(journal), "allocator_environment")


@needs_memrel
def test_a_resume_under_another_address_space_limit_is_refused(tmp_path):
    """c8-resume-keeps-ulimit-v-errors: cells that failed for `ulimit -v` were kept by a --resume
    once the limit was lifted, exit 3."""
    args, out, journal = interrupted_run(tmp_path)
    r = subprocess.run(["sh", "-c", 'ulimit -v 4000000 && exec "$@"', "sh", *args, "--resume"],
                       capture_output=True, text=True, timeout=60)
    refused(r, str(journal), "address_space_limit_bytes")


@needs_memrel
def test_include_null_with_b_runs_null_too(tmp_path):
    """c5-include-null-with-b-ignored: `run -b host-malloc --include-null` ran no null cell, exit 0,
    without a word."""
    r = memrel("-q", "run", "-b", "host-malloc", "--include-null", "-w", "temp-then-delete", "-o",
               "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    cells = json.loads((tmp_path / "r.json").read_text())["cells"]
    assert sorted(c["backend"] for c in cells) == ["host-malloc", "null"]
