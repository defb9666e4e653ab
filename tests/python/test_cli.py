"""The command line, run as a user runs it (subprocess): the folder it writes, and exit 2 with
one line on stderr, nothing written, for unusable input."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import synthetic
from conftest import (H200_RUN, HOST_RUN, ROOT, SCRIPTS, assert_png, assert_svg, bench_files,
                      host_subset, read_json)

# The gate's verdicts as memrel compare --json writes them (a hand-made example of the schema).
VERDICT = os.path.join(ROOT, "tests", "data", "formats", "gate-verdicts", "valid", "regression.json")


def report(*args, env=None):
    e = dict(os.environ, PYTHONPATH=SCRIPTS, MPLBACKEND="Agg")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "memrel_report", *map(str, args)],
                          capture_output=True, text=True, env=e, cwd=ROOT, timeout=300)


def images_of(page_html):
    return re.findall(r'(?:src|href)="([^"]+\.(?:png|svg))"', page_html)


def check_folder(out):
    """Every page self-contained (no script, nothing fetched, every link relative and present),
    every image valid, every PNG with its SVG, report.md's links present. Returns the index
    page's HTML and report.md."""
    names = set(os.listdir(out))
    assert {"index.html", "report.md", ".memrel-report", "data"} <= names
    pages = sorted(n for n in names if n.endswith(".html"))
    images = set()
    for page in pages:
        text = (out / page).read_text(encoding="utf-8")
        assert "<script" not in text.lower(), page
        assert not re.search(r'(?:src|href)="(?:[a-z]+:)?//', text), page
        for ref in re.findall(r'(?:src|href)="([^"#]*)(?:#[^"]*)?"', text):
            if ref:
                assert not ref.startswith("/") and (out / ref).is_file(), (page, ref)
        images |= set(images_of(text))
    assert images, "no images referenced"
    for ref in images:
        (assert_png if ref.endswith(".png") else assert_svg)(out / ref)
    md = (out / "report.md").read_text(encoding="utf-8")
    for ref in re.findall(r"\]\(([^)#]*)(?:#[^)]*)?\)", md):
        if ref:
            assert (out / ref).is_file(), ref
    pngs = {n[:-4] for n in names if n.endswith(".png")}
    assert pngs == {n[:-4] for n in names if n.endswith(".svg")}
    return (out / "index.html").read_text(encoding="utf-8"), md


def test_host_report(tmp_path):
    verdict = tmp_path / "verdict.json"
    shutil.copy(VERDICT, verdict)
    out = tmp_path / "report"
    bench = [a for p in bench_files() for a in ("--bench", p)]
    timelines = ("--timeline", "host-malloc/fragmentation", "--timeline", "host-malloc-retain/temp-then-delete-x100")
    r = report("--out", out, "--baseline-verdict", verdict, *bench, *timelines, HOST_RUN)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out)
    html, md = check_folder(out)
    doc = read_json(HOST_RUN)
    names = set(os.listdir(out))
    workloads = {c["workload"] for c in doc["cells"]}
    assert {f"phase-{w}.png" for w in workloads} <= names
    assert {"release-effectiveness.png", "latency-host.png", "verdict-release-effectiveness.png"} <= names
    assert {"verdicts.json", "verdicts.csv", "metrics.csv", "latency.csv"} <= set(os.listdir(out / "data"))
    assert sorted(n for n in names if n.startswith("timeline-") and n.endswith(".png")) == [
        "timeline-host-malloc--fragmentation.png", "timeline-host-malloc-retain--temp-then-delete-x100.png"]
    assert "## Verdicts" in md and 'id="verdict-table"' in html  # the answer first, in both renderings
    assert md.index("## Verdicts") < md.index("## Workload")
    assert not any(n.startswith("attribution-") for n in names)
    # environment, tables, verdict: on the environment page, and in report.md
    html = (out / "environment.html").read_text(encoding="utf-8")
    assert doc["context"]["git_commit"] in md and doc["context"]["git_commit"] in html
    assert "377,487,360 B" in md and "360.00 MiB" in md
    assert "377,487,360 B" in (out / "workload-single-large.html").read_text(encoding="utf-8")
    # the gate's rows, read as data: a table per compared file, the p-value and reason apart
    assert "## Gate verdict" in md and "### suite.json" in md and "### bench-cuda.json" in md
    assert "| cuda-malloc/single-large · peak_reserved | 377487360 (360.0 MiB) |" in md
    assert "<td>pair/cuda-malloc/warm/4096 · real_time</td>" in html and "<td>0.00018</td>" in html
    assert "<td>a | b · x</td>" in html
    assert "FAIL: 6 compared, 2 regressions, 1 missing, 1 new" in html
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "FAIL: 6 compared, 2 regressions, 1 missing" in index
    assert "14 cells: 14 ok." in md
    # no temporary folder left beside it
    assert sorted(os.listdir(tmp_path)) == ["report", "verdict.json"]


def test_device_report(tmp_path):
    run = tmp_path / "synthetic-device-run.json"
    run.write_text(json.dumps(synthetic.device_run()))
    out = tmp_path / "report"
    r = report("--out", out, "--timeline", "cuda-malloc/huge", run)
    assert r.returncode == 0, r.stderr
    html, md = check_folder(out)
    assert "attribution-single-large.png" in os.listdir(out)
    assert "no CUDA device (synthetic)" in md  # the reason of a non-ok cell
    assert "| cuda-malloc | huge | oom | step 1: cannot allocate 4 GiB (synthetic) |" in md
    assert not any(n.startswith("latency") for n in os.listdir(out))  # no --bench: no latency chart


@pytest.mark.skipif(not os.path.exists(H200_RUN),
                    reason="tests/data/h200-run.json absent: no H200 results committed yet")
def test_h200_report(tmp_path):
    """Two workloads of the real H200 run (test_plots draws each kind of plot from all of it)."""
    doc = read_json(H200_RUN)
    doc["cells"] = [c for c in doc["cells"] if c["workload"] in ("single-large", "del-without-release")]
    run = tmp_path / "h200-subset.json"
    run.write_text(json.dumps(doc))
    device = next(c for c in doc["cells"] if c["setup"]["memory_space"] == "device" and c["steps"])
    out = tmp_path / "report"
    r = report("--out", out, "--timeline", f"{device['backend']}/{device['workload']}", run)
    assert r.returncode == 0, r.stderr
    html, md = check_folder(out)
    assert doc["context"]["gpu"] in md and doc["context"]["driver_version"] in md


def test_a_run_where_nothing_could_run_says_so_instead_of_drawing_empty_charts(tmp_path):
    doc = read_json(HOST_RUN)
    doc["cells"] = [dict(c, status="unavailable", reason="no CUDA device (synthetic)", marks=[], steps=[],
                         releases=[]) for c in doc["cells"][:3]]
    run = tmp_path / "nothing-ran.json"
    run.write_text(json.dumps(doc))
    out = tmp_path / "report"
    r = report("--out", out, run)
    assert r.returncode == 0, r.stderr
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "No verdict: no cell finished ok here" in html
    assert not [n for n in os.listdir(out) if n.endswith(".png")]  # no empty chart
    cells = (out / "cells.html").read_text(encoding="utf-8")
    assert cells.count("no CUDA device (synthetic)") == 1  # said once, for its three cells


def test_two_runs_of_the_same_pairs(tmp_path):
    """Also: without --timeline every cell with steps gets its timeline."""
    out = tmp_path / "report"
    run = host_subset(tmp_path, {"del-without-release"})
    # A second run of the same pairs: a copy of one file is the same run given twice, refused.
    doc = json.loads(open(run).read())
    doc["context"]["started"] = "2026-12-06T00:00:00Z"
    again = tmp_path / "again.json"
    again.write_text(json.dumps(doc))
    r = report("--out", out, run, again)
    assert r.returncode == 0, r.stderr
    md = (out / "report.md").read_text()
    assert "host-malloc #1" in md and "host-malloc #2" in md
    timelines = sorted(n for n in os.listdir(out) if n.startswith("timeline-") and n.endswith(".svg"))
    # "host-malloc #1" is not a file name as it is: its file name keeps a hash of it (prepare.slug)
    from memrel_report import prepare

    assert timelines == sorted(f"timeline-{prepare.slug(f'{b} #{r}')}--del-without-release.svg"
                               for b in ("host-malloc", "host-malloc-retain") for r in (1, 2))


def _one_line_error(r, path, what):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"memrel report: {path}: "), lines[0]
    assert what in lines[0]
    assert r.stdout == ""


@pytest.mark.parametrize("content, what", [
    ("", "empty file"),
    ("{\"schema\": ", "malformed JSON"),
    (json.dumps({"schema": "memrel.results/0", "context": {}, "cells": []}), 'is not "memrel.results/1"'),
    (json.dumps({"context": {}, "cells": []}), 'missing "schema"'),
])
def test_unusable_results_exit_2_and_write_nothing(tmp_path, content, what):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out = tmp_path / "report"
    r = report("--out", out, HOST_RUN, bad)
    _one_line_error(r, bad, what)
    assert sorted(os.listdir(tmp_path)) == ["bad.json"]


def test_unusable_bench_and_verdict(tmp_path):
    out = tmp_path / "report"
    _one_line_error(report("--out", out, "--bench", HOST_RUN, HOST_RUN), HOST_RUN, "not Google Benchmark JSON")
    missing = tmp_path / "verdict.json"
    _one_line_error(report("--out", out, "--baseline-verdict", missing, HOST_RUN), missing, "cannot read")
    markdown = tmp_path / "gate.md"  # the table for people is not the data
    markdown.write_text("## memrel compare\n")
    _one_line_error(report("--out", out, "--baseline-verdict", markdown, HOST_RUN), markdown, "malformed JSON")
    _one_line_error(report("--out", out, "--timeline", "nope/none", HOST_RUN), "--timeline", "no cell 'nope/none'")
    assert not out.exists()


def test_no_cells(tmp_path):
    empty = tmp_path / "empty-run.json"
    empty.write_text(json.dumps({"schema": "memrel.results/1", "context": {}, "cells": []}))
    _one_line_error(report("--out", tmp_path / "r", empty), empty, "no cells")


def test_usage_errors_exit_2(tmp_path):
    assert report(HOST_RUN).returncode == 2  # no --out
    assert report("--out", tmp_path / "r").returncode == 2  # no results
    assert report("--out", tmp_path / "r", "--jobs", "0", HOST_RUN).returncode == 2
    # t-rep-jobs-3: a worker per job; 99999999 is refused before any is started.
    too_many = report("--out", tmp_path / "r", "--jobs", "99999999", HOST_RUN)
    assert too_many.returncode == 2 and "--jobs" in too_many.stderr
    assert not (tmp_path / "r").exists()


def test_an_old_report_is_replaced_and_other_folders_are_not(tmp_path):
    out = tmp_path / "report"
    run = host_subset(tmp_path, {"single-large"})
    args = ("--jobs", "1", "--timeline", "host-malloc/single-large", run)
    out.mkdir()  # an earlier report: it has the marker
    (out / ".memrel-report").write_text("")
    (out / "stale.png").write_bytes(b"old")
    assert report("--out", out, *args).returncode == 0
    assert not (out / "stale.png").exists()  # replaced whole
    check_folder(out)
    assert sorted(os.listdir(tmp_path)) == ["host-subset.json", "report"]
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    _one_line_error(report("--out", precious, *args), precious, "not a memrel report folder")
    assert (precious / "thesis.tex").read_text() == "do not delete"
    afile = tmp_path / "afile"
    afile.write_text("x")
    _one_line_error(report("--out", afile, *args), afile, "is a file; --out wants a folder")


def test_wrapper_script(tmp_path):
    wrapper = os.path.join(ROOT, "scripts", "report")
    assert os.access(wrapper, os.X_OK)
    r = subprocess.run([wrapper, "--help"], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, MEMREL_PYTHON=sys.executable))
    assert r.returncode == 0 and "--baseline-verdict" in r.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("")
    r = subprocess.run([wrapper, "--out", tmp_path / "r", bad], capture_output=True, text=True,
                       env=dict(os.environ, MEMREL_PYTHON=sys.executable))
    assert r.returncode == 2 and r.stderr == f"memrel report: {bad}: empty file\n"


def _memrel_binary():
    for build in sorted(os.listdir(os.path.join(ROOT, "build"))) if os.path.isdir(os.path.join(ROOT, "build")) else []:
        path = os.path.join(ROOT, "build", build, "memrel")
        if os.access(path, os.X_OK):
            help_text = subprocess.run([path, "--help"], capture_output=True, text=True).stdout
            if re.search(r"^\s+report\s", help_text, re.M):
                return path
    return None


def test_memrel_report_subcommand(tmp_path):
    memrel = os.environ.get("MEMREL_BINARY") or _memrel_binary()
    if not memrel:
        pytest.skip("no memrel binary with the report subcommand under build/ (build it, or set MEMREL_BINARY)")
    env = dict(os.environ, MEMREL_PYTHON=sys.executable, MPLBACKEND="Agg")
    r = subprocess.run([memrel, "report", "--help"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "--baseline-verdict" in r.stdout
    # the arguments reach the script unparsed, and its exit code and stderr come back
    out = tmp_path / "r"
    bad = tmp_path / "bad.json"
    bad.write_text("")
    r = subprocess.run([memrel, "report", "--out", out, bad], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and r.stderr == f"memrel report: {bad}: empty file\n"


@pytest.mark.parametrize("module, words", [("memrel_report", []), ("memrel_trace", []),
                                           ("memrel_trace", ["import"]),
                                           ("memrel_history", [])])
def test_python_subcommands_print_help_as_the_cpp_ones_do(module, words):
    """One help style: what the command does, then "Usage: memrel ...", "Positionals:",
    "Options:" and "-h,--help  Print this help message and exit", as CLI11 prints it."""
    env = dict(os.environ, PYTHONPATH=SCRIPTS)
    args = [*words, "--help"]
    r = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "\nUsage: memrel " in r.stdout and "usage:" not in r.stdout
    assert "\nOptions:\n" in r.stdout and "Print this help message and exit" in r.stdout
    assert "positional arguments" not in r.stdout and "optional arguments" not in r.stdout


@pytest.mark.parametrize("setting", ["home-file", "mplconfigdir-read-only"])
def test_an_unusable_matplotlib_folder_leaves_nothing_in_tmpdir(tmp_path, setting):
    # f-home-file, f-mplcfg-ro: matplotlib made a matplotlib-* folder in TMPDIR for each plotting
    # process, and left them there.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp), "MPLCONFIGDIR": "", "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": ""}
    if setting == "home-file":
        (tmp_path / "home").write_text("x")
        env["HOME"] = str(tmp_path / "home")
    else:
        env["MPLCONFIGDIR"] = "/proc/1"
    r = report("--out", tmp_path / "rep", "--jobs", "2", HOST_RUN, env=env)
    assert r.returncode == 0, r.stderr
    assert "Matplotlib created a temporary" not in r.stderr
    assert list(tmp.iterdir()) == []
