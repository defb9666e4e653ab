"""The report as a site, loaded in a real browser: Debian's headless Chromium (browser.py) opens
every page of a report of real host results (with a trace and benchmarks): no broken image, no
broken link, no console error, nothing fetched but the folder's own files, and the verdicts
within the first screen. The first screen of the index is kept as a test artifact:
build/test-artifacts/report-first-screen.png.

Skipped, with the reason, where Chromium is not installed (scripts/install-deps installs it).
"""

import os
import subprocess
import sys
import urllib.parse

import pytest
from conftest import HOST_RUN, ROOT, SCRIPTS, TRACE_RUN, bench_files

import browser

ARTIFACTS = os.path.join(ROOT, "build", "test-artifacts")
VIEWPORT = (1280, 900)  # a laptop's first screen

pytestmark = pytest.mark.skipif(browser.find_chromium() is None,
                                reason="no chromium on PATH: scripts/install-deps installs Debian's chromium")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "report"
    bench = [a for p in bench_files() for a in ("--bench", p)]
    env = dict(os.environ, PYTHONPATH=SCRIPTS, MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, "-m", "memrel_report", "--out", str(out), *bench, HOST_RUN, TRACE_RUN],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def chromium():
    with browser.Browser(*VIEWPORT) as b:
        yield b


def _path_of(url):
    parsed = urllib.parse.urlparse(url)
    return urllib.parse.unquote(parsed.path), urllib.parse.unquote(parsed.fragment)


def test_every_page_loads_whole_without_errors_and_links_only_inside_the_folder(site, chromium):
    pages = sorted(p for p in os.listdir(site) if p.endswith(".html"))
    assert {"index.html", "workloads.html", "backends.html", "traces.html", "latency.html", "cells.html",
            "environment.html", "downloads.html"} <= set(pages)
    ids = {}
    linked = set()
    for page in pages:
        chromium.load(site / page)
        info = chromium.inspect()
        assert chromium.console_errors() == [], page
        outside = [u for u in chromium.requests() if not u.startswith(("file:", "data:", "about:"))]
        assert outside == [], page
        assert info["broken_images"] == [], page
        ids[page] = set(info["ids"])
        for url in info["links"]:
            assert url.startswith("file://"), (page, url)
            path, fragment = _path_of(url)
            assert os.path.isfile(path), (page, url)
            assert os.path.realpath(path).startswith(os.path.realpath(site)), (page, url)
            linked.add((os.path.relpath(path, site), fragment))
    for target, fragment in linked:
        if fragment and target.endswith(".html"):
            assert fragment in ids[target], (target, fragment)
    # every page is reachable from the others
    assert {t for t, _ in linked if t.endswith(".html")} >= set(pages) - {"index.html"} | {"index.html"}


def test_the_verdicts_are_on_the_first_screen_and_the_index_is_short(site, chromium):
    chromium.load(site / "index.html")
    info = chromium.inspect()
    assert info["verdicts_top"] is not None, "no verdict table"
    assert 0 <= info["verdicts_top"] and info["verdicts_bottom"] <= VIEWPORT[1], info
    assert info["scroll_height"] <= 3.5 * VIEWPORT[1], info  # about three screens
    os.makedirs(ARTIFACTS, exist_ok=True)
    shot = chromium.screenshot(os.path.join(ARTIFACTS, "report-first-screen.png"))
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    text = chromium.evaluate("document.getElementById('verdict-table').innerText")
    for question in ("Does a release give memory back?", "What stays held after the last release?",
                     "How much does it reserve for what was asked?", "How fast is an allocation it has cached?",
                     "On real programs' traces, how much does it reserve?"):
        assert question in text
    assert "★" in text  # a best is named


def test_the_trace_page_draws_every_backend_over_the_requested_curve(site, chromium):
    page = next(p for p in os.listdir(site) if p.startswith("trace-") and p.endswith(".html"))
    chromium.load(site / page)
    assert chromium.evaluate("[...document.images].some(i => i.src.includes('/trace-') && i.naturalWidth > 0)")
    csv = next(n for n in os.listdir(site / "data") if n.startswith("trace-"))
    header, *rows = (site / "data" / csv).read_text().splitlines()
    assert header == "space,scale,curve,event,bytes"
    curves = {r.split(",")[2] for r in rows}
    assert {"requested", "host-malloc reserved", "host-malloc-retain reserved"} <= curves
