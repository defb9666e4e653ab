"""plots.py: every plot renders from the real samples (and the synthetic cells for what they
lack) into a valid PNG and SVG."""

import json

import pytest

import synthetic
from conftest import REAL_RUNS, assert_plot, bench_files, load_cells
from memrel_report import load, plots, prepare


@pytest.fixture(params=REAL_RUNS)
def cells(request):
    return load_cells(request.param)


@pytest.fixture
def device_cells(tmp_path):
    path = tmp_path / "synthetic-device-run.json"
    path.write_text(json.dumps(synthetic.device_run()))
    return load_cells(str(path))


def test_heatmap(cells, tmp_path):
    assert_plot(tmp_path, plots.effectiveness_heatmap(prepare.effectiveness_heatmap(cells), tmp_path))


def test_phase_chart(cells, tmp_path):
    # the workload with the most marks: the widest chart
    workload = max(prepare.workloads(cells),
                   key=lambda w: sum(len(c.raw["marks"]) for c in cells if c.workload == w))
    plot = plots.phase_chart(prepare.phase_chart(cells, workload), tmp_path)
    assert plot.png == f"phase-{workload}.png"
    assert_plot(tmp_path, plot)


def test_timeline(cells, tmp_path):
    longest = max(prepare.timeline_cells(cells), key=lambda c: len(c.raw["steps"]))
    assert_plot(tmp_path, plots.timeline_chart(prepare.timeline(longest), tmp_path))


def test_attribution_of_real_torch_cells(cells, tmp_path):
    torch = prepare.torch_cells(cells)
    if not torch:
        pytest.skip("no torch cells in this results file")
    workload = torch[0].workload
    panels = [prepare.attribution(c) for c in torch if c.workload == workload]
    assert_plot(tmp_path, plots.attribution_chart(workload, panels, tmp_path))


def test_attribution_with_a_negative_remainder(device_cells, tmp_path):
    """A host run has no torch cells: the synthetic ones (one with NVML below its parts)."""
    panels = [prepare.attribution(c) for c in prepare.torch_cells(device_cells)]
    assert_plot(tmp_path, plots.attribution_chart("single-large", panels, tmp_path))


def test_latency(tmp_path):
    points, _ = prepare.latency_points([load.load_bench(p) for p in bench_files()])
    assert points
    assert_plot(tmp_path, plots.latency_chart(prepare.latency_series(points), out_dir=tmp_path))


def test_svg_is_reproducible(tmp_path):
    from conftest import HOST_RUN

    cell = next(c for c in load_cells(HOST_RUN) if c.workload == "del-without-release")
    tl = prepare.timeline(cell)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = plots.timeline_chart(tl, tmp_path / "a")
    plots.timeline_chart(tl, tmp_path / "b")
    assert (tmp_path / "a" / a.svg).read_bytes() == (tmp_path / "b" / a.svg).read_bytes()
