"""Shared set-up for the report's tests (pytest): the package on sys.path, matplotlib without a
display, the results samples, and checks that a file really is a PNG or an SVG.

Run from the repository root: python3 -m pytest tests/python -q
"""

import json
import os
import struct
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
DATA = os.path.join(ROOT, "tests", "data")
sys.path.insert(0, SCRIPTS)
sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("MPLBACKEND", "Agg")

HOST_RUN = os.path.join(DATA, "host-run.json")
H200_RUN = os.path.join(DATA, "h200-run.json")          # added by the lead after a GPU run
HOST_BENCH = os.path.join(DATA, "host-bench.json")      # a real memrel_bench quick run, once it exists
SYNTHETIC_BENCH = os.path.join(DATA, "synthetic-bench.json")
# A real host run of two backends replaying a trace (tests/data/README.md says how it was made).
TRACE_RUN = os.path.join(DATA, "host-trace-run.json")

# The real results samples; the H200 one is skipped (with the reason) until it is committed.
REAL_RUNS = [
    pytest.param(HOST_RUN, id="host-run"),
    pytest.param(H200_RUN, id="h200-run", marks=pytest.mark.skipif(
        not os.path.exists(H200_RUN), reason="tests/data/h200-run.json absent: no H200 results committed yet")),
]


def bench_files():
    """The benchmark JSON the latency tests read: the real host run when it exists, and the
    synthetic fixture (it has the shapes a host run lacks: aggregates, cold, ms units, errors)."""
    return [p for p in (HOST_BENCH, SYNTHETIC_BENCH) if os.path.exists(p)]


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_cells(path):
    from memrel_report import load

    return load.collect_cells([load.load_results(path)])


def host_subset(tmp_path, workloads, name="host-subset.json"):
    """tests/data/host-run.json cut down to some workloads (real cells, fewer plots to draw)."""
    doc = read_json(HOST_RUN)
    doc["cells"] = [c for c in doc["cells"] if c["workload"] in workloads]
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png(path):
    """A PNG: signature, an IHDR chunk first with a sane size, and matplotlib can read it."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == PNG_SIGNATURE, f"{path}: not a PNG signature"
    length, kind = struct.unpack(">I4s", head[8:16])
    assert kind == b"IHDR" and length == 13, f"{path}: first chunk is not IHDR"
    width, height = struct.unpack(">II", head[16:24])
    assert 200 <= width <= 2000 and 150 <= height <= 2000, f"{path}: odd size {width}x{height}"
    import matplotlib.image

    pixels = matplotlib.image.imread(path)
    assert pixels.shape[:2] == (height, width)
    return width, height


def assert_svg(path):
    """An SVG: well-formed XML whose root is <svg>."""
    root = ET.parse(path).getroot()
    assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg"), f"{path}: root is {root.tag}"


def assert_plot(out_dir, plot):
    """Both files of a plots.Plot exist and are what their names say."""
    assert_png(os.path.join(out_dir, plot.png))
    assert_svg(os.path.join(out_dir, plot.svg))


def memrel_binary():
    """The memrel under test: MEMREL_BINARY, else the first build under build/; None without one."""
    if os.environ.get("MEMREL_BINARY"):
        return os.environ["MEMREL_BINARY"]
    for preset in ("ci", "default", "gpu"):
        path = os.path.join(ROOT, "build", preset, "memrel")
        if os.access(path, os.X_OK):
            return path
    return None
