"""memrel report --history DB: a history of 32 synthetic nights (history_nights.py), added night by
night with `memrel history add`, with a step planted in one figure; the site built from it, alone
and beside a night's results, loaded in headless Chromium (browser.py): no broken link or image,
no console error; the planted step listed on the index with its commit range and marked on its
chart page; the night without the figure a gap.

Skipped, with the reason, without Chromium, without a built memrel, or without Apache Otava
(scripts/install-deps installs all three)."""

import os
import re
import subprocess
import sys
import urllib.parse

import pytest
from conftest import HOST_RUN, SCRIPTS

import browser
import history_nights as nights
from memrel_report import history, history_pages

OTAVA = history.otava_python()
STEPPED = f"{nights.STEP_CELL[0]}/{nights.STEP_CELL[1]}:{nights.STEP_FIGURE}"
RANGE = f"{nights.commit_of(nights.STEP - 1)[:10]}..{nights.commit_of(nights.STEP)[:10]}"


MEMREL = nights.memrel_binary()
pytestmark = [
    pytest.mark.skipif(browser.find_chromium() is None, reason="no chromium on PATH: scripts/install-deps"),
    pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/ (build it, or set MEMREL_BINARY)"),
    pytest.mark.skipif(OTAVA is None, reason="Apache Otava not installed: scripts/install-deps"),
]


def report(*args):
    env = dict(os.environ, PYTHONPATH=SCRIPTS, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "memrel_report", *args], env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return nights.build_history(MEMREL, str(tmp_path_factory.mktemp("nights")))


@pytest.fixture(scope="module")
def sites(db, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sites")
    alone, beside = folder / "alone", folder / "beside"
    for out, results in ((alone, []), (beside, [HOST_RUN])):
        r = report("--history", db, "--out", str(out), *results)
        assert r.returncode == 0, r.stderr
    return alone, beside


@pytest.fixture(scope="module")
def chromium():
    with browser.Browser(1280, 900) as b:
        yield b


def _path_of(url):
    parsed = urllib.parse.urlparse(url)
    return urllib.parse.unquote(parsed.path), urllib.parse.unquote(parsed.fragment)


@pytest.mark.parametrize("which", [0, 1], ids=["history-alone", "history-and-results"])
def test_every_page_loads_whole_and_every_link_lands(sites, chromium, which):
    site = sites[which]
    pages = sorted(p for p in os.listdir(site) if p.endswith(".html"))
    assert {"index.html", "history-peak-reserved.html", "history-latency.html"} <= set(pages)
    ids, linked = {}, set()
    for page in pages:
        chromium.load(site / page)
        info = chromium.inspect()
        assert chromium.console_errors() == [], page
        assert info["broken_images"] == [], page
        assert [u for u in chromium.requests() if not u.startswith(("file:", "data:", "about:"))] == [], page
        ids[page] = set(info["ids"])
        for url in info["links"]:
            path, fragment = _path_of(url)
            assert os.path.isfile(path), (page, url)
            assert os.path.realpath(path).startswith(os.path.realpath(site)), (page, url)
            linked.add((os.path.relpath(path, site), fragment))
    for target, fragment in linked:
        if fragment and target.endswith(".html"):
            assert fragment in ids[target], (target, fragment)
    assert {t for t, _ in linked if t.endswith(".html")} >= set(pages)


def test_the_planted_step_is_on_the_index_with_its_commit_range(sites, chromium):
    for site in sites:
        chromium.load(site / "index.html")
        text = chromium.evaluate("document.body.innerText")
        assert "What changed in the last 14 nights" in text
        row = next((line for line in text.splitlines() if STEPPED in line), None)
        assert row is not None, text[:3000]
        assert RANGE in row and "up, worse" in row, row
    # Beside results, the changes come first, then today's verdicts.
    chromium.load(sites[1] / "index.html")
    headings = chromium.evaluate("[...document.querySelectorAll('h2')].map(h => h.textContent)")
    assert headings[:2] == ["What changed in the last 14 nights", "Verdicts"], headings


def test_the_step_is_marked_on_its_chart_page(sites, chromium):
    site = sites[0]
    chromium.load(site / "index.html")
    href = chromium.evaluate(f"[...document.links].find(a => a.textContent === {STEPPED!r}).href")
    path, fragment = _path_of(href)
    assert os.path.basename(path) == "history-peak-reserved.html"
    chromium.load(path)
    assert chromium.evaluate(f"document.getElementById({fragment!r}) !== null")
    text = chromium.evaluate("document.body.innerText")
    assert re.search(re.escape(STEPPED) + r".*" + re.escape(RANGE), text), text[:3000]
    # The chart itself: matplotlib writes each text of an SVG as a comment before its glyphs.
    svg = (site / "history-peak-reserved-host-malloc.svg").read_text()
    assert f"<!-- {RANGE} -->" in svg
    other = (site / "history-peak-reserved-host-malloc-retain.svg").read_text()
    assert f"<!-- {RANGE} -->" not in other


def test_a_night_without_the_figure_is_a_gap_and_charts_share_their_scale(db):
    h = history.read(db)
    assert len(h.nights) == nights.NIGHTS
    charts = [b.images[0].plot.args[0] for p in history_pages.pages(h) if p.file == "history-peak-reserved.html"
              for b in p.blocks if hasattr(b, "images")]
    assert len(charts) == 2 and charts[0].y_range == charts[1].y_range
    chart = next(c for c in charts if c.title.startswith(f"{nights.STEP_CELL[0]}:"))
    values = dict(chart.lines)[nights.STEP_CELL[1]]
    assert len(values) == nights.NIGHTS and values[nights.GAP] is None
    assert all(v is not None for i, v in enumerate(values) if i != nights.GAP)
    assert (nights.STEP, RANGE) in chart.marks


@pytest.mark.parametrize("args,what", [
    (["--history", "/nonexistent/history.sqlite"], "no history database here"),
    ([], "give RESULTS.json, --history DB, or both"),
    (["--history", HOST_RUN], "a JSON document (a results file?), not a history database"),
    (["--history", "/nonexistent/history.sqlite", "--history-nights", "0"], "--history-nights"),
])
def test_bad_history_input_exits_2_with_one_line(tmp_path, args, what):
    r = report(*args, "--out", str(tmp_path / "site"))
    assert r.returncode == 2, r.stderr
    assert what in r.stderr, r.stderr
    assert not (tmp_path / "site").exists()


def test_a_run_without_a_start_time_is_refused(db, tmp_path):
    # A crafted database: SQLite keeps what it is given (TEXT affinity makes 42 the text "42").
    import shutil
    import sqlite3

    crafted = str(tmp_path / "crafted.sqlite")
    shutil.copy(db, crafted)
    with sqlite3.connect(crafted) as c:
        c.execute("UPDATE runs SET started = 42 WHERE id = 3")
    r = report("--history", crafted, "--out", str(tmp_path / "site"))
    assert r.returncode == 2, r.stderr
    assert "run 3: started '42' is not an ISO 8601 time" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
